package io.granary.common.error;

import io.netty.handler.codec.http.HttpResponseStatus;

/** 400: the body does not match the checksum the client supplied (or a remote store keeps); nothing was stored. */
public final class ChecksumMismatchException extends ApiException {
  public ChecksumMismatchException(String type, String expected, String actual) {
    this(type + " checksum mismatch: client sent " + expected + ", body hashes to " + actual
        + "; nothing was stored");
  }

  private ChecksumMismatchException(String message) {
    super(HttpResponseStatus.BAD_REQUEST, "BadDigest", message);
  }

  /** Content read from a remote store that does not hash to the checksum the remote keeps for it. */
  public static ChecksumMismatchException ofRemote(String type, String remoteSays, String actual) {
    return new ChecksumMismatchException(type + " checksum mismatch: the remote store keeps " + remoteSays
        + " for the object, the content read hashes to " + actual + "; not cached");
  }
}
