package io.granary.common.s3.auth;

/** How a verified request's body is authenticated, from its {@code x-amz-content-sha256}. */
public enum PayloadMode {
  /** {@code UNSIGNED-PAYLOAD}: the body is not covered by the signature (TLS or nothing protects it). */
  UNSIGNED("UNSIGNED-PAYLOAD"),
  /** A hex SHA-256 of the body was signed; the body must hash to {@link Authentication#payloadSha256()}. */
  SIGNED_HASH(null),
  /** {@code STREAMING-AWS4-HMAC-SHA256-PAYLOAD}: aws-chunked, every chunk signed. */
  STREAMING_SIGNED("STREAMING-AWS4-HMAC-SHA256-PAYLOAD"),
  /** {@code STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER}: aws-chunked, chunks and trailers signed. */
  STREAMING_SIGNED_TRAILER("STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER"),
  /** {@code STREAMING-UNSIGNED-PAYLOAD-TRAILER}: aws-chunked, unsigned chunks, usually a checksum trailer. */
  STREAMING_UNSIGNED_TRAILER("STREAMING-UNSIGNED-PAYLOAD-TRAILER");

  private final String headerValue;

  PayloadMode(String headerValue) {
    this.headerValue = headerValue;
  }

  /** The literal {@code x-amz-content-sha256} value; null for {@link #SIGNED_HASH} (whose value is the hash). */
  public String headerValue() {
    return headerValue;
  }

  /** Whether the body is aws-chunked. */
  public boolean streaming() {
    return this == STREAMING_SIGNED || this == STREAMING_SIGNED_TRAILER || this == STREAMING_UNSIGNED_TRAILER;
  }

  /** Whether every chunk carries a chunk-signature. */
  public boolean signedChunks() {
    return this == STREAMING_SIGNED || this == STREAMING_SIGNED_TRAILER;
  }

  /** Whether trailers may follow the final chunk. */
  public boolean trailers() {
    return this == STREAMING_SIGNED_TRAILER || this == STREAMING_UNSIGNED_TRAILER;
  }

  /** The mode an {@code x-amz-content-sha256} value names; null when it is none of them. */
  static PayloadMode parse(String contentSha256) {
    for (PayloadMode m : values()) {
      if (m.headerValue != null && m.headerValue.equals(contentSha256)) {
        return m;
      }
    }
    return Sha256.isHex64(contentSha256) ? SIGNED_HASH : null;
  }
}
