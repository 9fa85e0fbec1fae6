package io.granary.common.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.common.error.BucketNotFoundException;
import io.granary.common.error.ObjectNotFoundException;
import io.granary.common.error.RangeNotSatisfiableException;
import io.granary.common.error.ServiceUnavailableException;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import org.junit.jupiter.api.Test;

class S3ErrorRendererTest {
  private static final ByteBufAllocator ALLOC = new UnpooledByteBufAllocator(false);

  private static ParsedXml body(FullHttpResponse r) {
    return ParsedXml.parse(ByteBufUtil.getBytes(r.content()));
  }

  @Test
  void noSuchBucket_statusHeadersAndBody() {
    FullHttpResponse r = S3ErrorRenderer.render(new BucketNotFoundException("photos"), "/photos", "req-1", false, ALLOC);
    try {
      assertThat(r.status().code()).isEqualTo(404);
      assertThat(r.headers().get(HttpHeaderNames.CONTENT_TYPE)).isEqualTo("application/xml");
      assertThat(r.headers().get("x-amz-request-id")).isEqualTo("req-1");
      assertThat(r.headers().contains("x-amz-id-2")).isFalse();
      assertThat(r.headers().getInt(HttpHeaderNames.CONTENT_LENGTH)).isEqualTo(r.content().readableBytes());
      ParsedXml x = body(r);
      assertThat(x.name()).isEqualTo("Error");
      assertThat(x.childNames()).containsExactly("Code", "Message", "Resource", "RequestId");
      assertThat(x.text("Code")).isEqualTo("NoSuchBucket");
      assertThat(x.text("Message")).isEqualTo("bucket 'photos' does not exist");
      assertThat(x.text("Resource")).isEqualTo("/photos");
      assertThat(x.text("RequestId")).isEqualTo("req-1");
    } finally {
      r.release();
    }
  }

  @Test
  void hostId_isHeaderAndElement() {
    FullHttpResponse r = S3ErrorRenderer.render(new ObjectNotFoundException("b", "k"), "/b/k", "req-2", "p1", false, ALLOC);
    try {
      assertThat(r.headers().get("x-amz-id-2")).isEqualTo("p1");
      assertThat(body(r).text("HostId")).isEqualTo("p1");
      assertThat(body(r).text("Code")).isEqualTo("NoSuchKey");
    } finally {
      r.release();
    }
  }

  @Test
  void head_sameStatusAndHeaders_noBody() {
    FullHttpResponse get = S3ErrorRenderer.render(new ObjectNotFoundException("b", "k"), "/b/k", "r", false, ALLOC);
    FullHttpResponse head = S3ErrorRenderer.render(new ObjectNotFoundException("b", "k"), "/b/k", "r", true, ALLOC);
    try {
      assertThat(head.status()).isEqualTo(get.status());
      assertThat(head.content().readableBytes()).isZero();
      assertThat(head.headers().get(HttpHeaderNames.CONTENT_TYPE)).isEqualTo("application/xml");
      assertThat(head.headers().get(HttpHeaderNames.CONTENT_LENGTH)).isEqualTo(get.headers().get(HttpHeaderNames.CONTENT_LENGTH));
      assertThat(head.headers().get("x-amz-request-id")).isEqualTo("r");
    } finally {
      get.release();
      head.release();
    }
  }

  @Test
  void serviceUnavailable_hasRetryAfter() {
    FullHttpResponse r = S3ErrorRenderer.render(
        new ServiceUnavailableException(ServiceUnavailableException.BUSY, "too many requests", 2), "/b/k", "r", false, ALLOC);
    try {
      assertThat(r.status().code()).isEqualTo(503);
      assertThat(r.headers().get(HttpHeaderNames.RETRY_AFTER)).isEqualTo("2");
      assertThat(body(r).text("Code")).isEqualTo("SlowDown");
    } finally {
      r.release();
    }
  }

  @Test
  void unsatisfiableRange_hasContentRangeWithSize() {
    FullHttpResponse r = S3ErrorRenderer.render(new RangeNotSatisfiableException("past the end", 1234), "/b/k", "r", false, ALLOC);
    try {
      assertThat(r.status().code()).isEqualTo(416);
      assertThat(r.headers().get(HttpHeaderNames.CONTENT_RANGE)).isEqualTo("bytes */1234");
      assertThat(body(r).text("Code")).isEqualTo("InvalidRange");
    } finally {
      r.release();
    }
  }

  @Test
  void unsatisfiableRange_unknownSize_hasNoContentRange() {
    FullHttpResponse r = S3ErrorRenderer.render(new RangeNotSatisfiableException("x", -1), "/b/k", "r", false, ALLOC);
    try {
      assertThat(r.headers().contains(HttpHeaderNames.CONTENT_RANGE)).isFalse();
    } finally {
      r.release();
    }
  }

  @Test
  void details_becomeElements_andNullsAreLeftOut() {
    FullHttpResponse r = S3ErrorRenderer.render(
        S3ApiException.invalidArgument("bad encoding", "encoding-type", "zip"), null, null, false, ALLOC);
    try {
      ParsedXml x = body(r);
      assertThat(r.status().code()).isEqualTo(400);
      assertThat(r.headers().contains("x-amz-request-id")).isFalse();
      assertThat(x.childNames()).containsExactly("Code", "Message", "ArgumentName", "ArgumentValue");
      assertThat(x.text("ArgumentValue")).isEqualTo("zip");
    } finally {
      r.release();
    }
  }
}
