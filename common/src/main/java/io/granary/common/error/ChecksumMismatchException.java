package io.granary.common.error;

import io.netty.handler.codec.http.HttpResponseStatus;

/** 400: the body does not match the checksum the client supplied; nothing was stored. */
public final class ChecksumMismatchException extends ApiException {
  public ChecksumMismatchException(String type, String expected, String actual) {
    super(HttpResponseStatus.BAD_REQUEST, "BadDigest",
        type + " checksum mismatch: client sent " + expected + ", body hashes to " + actual + "; nothing was stored");
  }
}
