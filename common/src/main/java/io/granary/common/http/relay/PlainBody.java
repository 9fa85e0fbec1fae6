package io.granary.common.http.relay;

import io.granary.common.error.ApiException;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.function.Consumer;

/**
 * A body relayed as is. When the client signed the payload's SHA-256 (SigV4 with a hex {@code x-amz-content-sha256},
 * as boto3 does over plain HTTP), the hash is computed on the way and checked at the end.
 */
public final class PlainBody implements RequestBody {
  private final long length;
  private final String expectedSha256; // lowercase hex, or null when the payload is unsigned
  private final MessageDigest sha256;

  public PlainBody(long length, String expectedSha256) {
    this.length = length;
    this.expectedSha256 = expectedSha256;
    try {
      this.sha256 = expectedSha256 == null ? null : MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void accept(ByteBuf chunk, Consumer<ByteBuf> out) {
    if (!chunk.isReadable()) {
      return;
    }
    if (sha256 != null) {
      for (ByteBuffer nio : chunk.nioBuffers()) {
        sha256.update(nio);
      }
    }
    out.accept(chunk.retainedSlice());
  }

  @Override
  public HttpHeaders finish() {
    if (sha256 != null) {
      String actual = HexFormat.of().formatHex(sha256.digest());
      if (!actual.equalsIgnoreCase(expectedSha256)) {
        throw new ContentSha256MismatchException(expectedSha256, actual);
      }
    }
    return EmptyHttpHeaders.INSTANCE;
  }

  @Override
  public long decodedLength() {
    return length;
  }

  /** 400 XAmzContentSHA256Mismatch: the body does not hash to the x-amz-content-sha256 the client signed. */
  static final class ContentSha256MismatchException extends ApiException {
    ContentSha256MismatchException(String expected, String actual) {
      super(HttpResponseStatus.BAD_REQUEST, "XAmzContentSHA256Mismatch",
          "the body's SHA-256 is " + actual + " but x-amz-content-sha256 says " + expected + "; nothing was stored");
    }
  }
}
