package io.granary.common.s3.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Locale;

/**
 * What one verified request signed with: the derived signing key, the request time ({@code x-amz-date} form) and the
 * credential scope. It computes the request signature, and the chained signatures of aws-chunked chunks and
 * trailers, each of which includes the signature before it (starting from the request's "seed" signature).
 * Immutable; belongs to one request.
 */
public final class ChunkSigner {
  private final SigningKey key;
  private final String amzDate;
  private final String scope;

  ChunkSigner(SigningKey key, String amzDate, String scope) {
    this.key = key;
    this.amzDate = amzDate;
    this.scope = scope;
  }

  /** The request time, e.g. {@code 20130524T000000Z}. */
  public String amzDate() {
    return amzDate;
  }

  /** The credential scope, e.g. {@code 20130524/us-east-1/s3/aws4_request}. */
  public String scope() {
    return scope;
  }

  /** The signature of a canonical request (hex). */
  String requestSignature(String canonicalRequest) {
    return sign("AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n" + Sha256.hex(canonicalRequest));
  }

  /** The signature of one chunk (hex) whose data hashes to {@code chunkSha256}. */
  public String chunkSignature(String previousSignature, byte[] chunkSha256) {
    return sign("AWS4-HMAC-SHA256-PAYLOAD\n" + amzDate + "\n" + scope + "\n" + previousSignature + "\n"
        + Sha256.EMPTY_HEX + "\n" + Sha256.HEX.formatHex(chunkSha256));
  }

  /** The signature of the trailer block (hex) whose canonical form ("name:value\n" each) hashes to the given. */
  public String trailerSignature(String previousSignature, byte[] trailerBlockSha256) {
    return sign("AWS4-HMAC-SHA256-TRAILER\n" + amzDate + "\n" + scope + "\n" + previousSignature + "\n"
        + Sha256.HEX.formatHex(trailerBlockSha256));
  }

  private String sign(String stringToSign) {
    return Sha256.HEX.formatHex(key.sign(stringToSign));
  }

  /** Compares an expected and a provided hex signature in time independent of where they differ. */
  static boolean sameSignature(String expectedHex, String providedHex) {
    return MessageDigest.isEqual(expectedHex.getBytes(StandardCharsets.US_ASCII),
        providedHex.toLowerCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII));
  }

  @Override
  public String toString() {
    return "ChunkSigner[" + amzDate + ", " + scope + "]";
  }
}
