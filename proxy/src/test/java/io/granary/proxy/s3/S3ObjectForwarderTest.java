package io.granary.proxy.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import org.junit.jupiter.api.Test;

class S3ObjectForwarderTest {

  @Test
  void contentEncoding_withoutAwsChunked_staysAsSpelled() {
    assertThat(stripped("deflate, gzip")).isEqualTo("deflate, gzip");
    assertThat(stripped("gzip")).isEqualTo("gzip");
  }

  @Test
  void contentEncoding_awsChunkedIsRemoved_theRestKeepsItsSpelling() {
    assertThat(stripped("aws-chunked")).isNull();
    assertThat(stripped("aws-chunked, deflate, gzip")).isEqualTo("deflate, gzip");
    assertThat(stripped("deflate,AWS-Chunked,gzip")).isEqualTo("deflate,gzip");
  }

  @Test
  void contentEncoding_onSeveralLines_isOneList() {
    HttpHeaders h = new DefaultHttpHeaders().add("Content-Encoding", "aws-chunked").add("Content-Encoding", "gzip");
    S3ObjectForwarder.stripAwsChunked(h);
    assertThat(h.getAll("Content-Encoding")).containsExactly("gzip");
  }

  private static String stripped(String value) {
    HttpHeaders h = new DefaultHttpHeaders().set("Content-Encoding", value);
    S3ObjectForwarder.stripAwsChunked(h);
    return h.get("Content-Encoding");
  }
}
