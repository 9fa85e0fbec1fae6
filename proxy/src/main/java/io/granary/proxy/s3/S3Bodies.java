package io.granary.proxy.s3;

import io.granary.common.error.BadRequestException;
import io.granary.common.http.HttpExchange;
import io.granary.common.s3.auth.Authentication;
import io.granary.common.s3.auth.AwsChunkedDecoder;
import io.granary.common.s3.auth.PayloadMode;
import io.granary.proxy.relay.AwsChunkedBody;
import io.granary.common.http.relay.PlainBody;
import io.granary.common.http.relay.RequestBody;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpUtil;
import java.util.Locale;

/** Picks how an S3 request's body is relayed, from how its signature covers the payload. */
final class S3Bodies {
  private S3Bodies() {}

  static RequestBody of(HttpExchange ex, Authentication auth) {
    String encoding = ex.header(HttpHeaderNames.CONTENT_ENCODING);
    boolean chunked = encoding != null && encoding.toLowerCase(Locale.ROOT).contains("aws-chunked");
    if (auth != null && auth.payloadMode().streaming()) {
      AwsChunkedDecoder decoder = AwsChunkedDecoder.forRequest(auth, ex.request().headers());
      return new AwsChunkedBody(decoder, Long.parseLong(ex.header("x-amz-decoded-content-length").strip()));
    }
    if (chunked) {
      throw new BadRequestException("InvalidRequest",
          "an aws-chunked body needs a signed request with a STREAMING-* x-amz-content-sha256");
    }
    long length = HttpUtil.getContentLength(ex.request(), ex.hasBody() ? -1L : 0L);
    return new PlainBody(length,
        auth != null && auth.payloadMode() == PayloadMode.SIGNED_HASH ? auth.payloadSha256() : null);
  }
}
