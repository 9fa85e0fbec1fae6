package io.granary.common.s3.auth;

import java.util.Objects;

/**
 * A request whose SigV4 signature verified: who signed it and how its body is to be checked.
 *
 * @param accessKey the access key that signed
 * @param payloadMode how the body is authenticated
 * @param payloadSha256 for {@link PayloadMode#SIGNED_HASH}, the lower-case hex SHA-256 the body must have; else null
 * @param seedSignature the request's signature (lower-case hex), the first link of an aws-chunked signature chain
 * @param chunkSigner what chunk and trailer signatures of the body are checked with; null for a SigV2 request, whose
 *     body is never aws-chunked
 */
public record Authentication(String accessKey, PayloadMode payloadMode, String payloadSha256, String seedSignature,
                             ChunkSigner chunkSigner) {

  public Authentication {
    Objects.requireNonNull(accessKey, "accessKey");
    Objects.requireNonNull(payloadMode, "payloadMode");
    Objects.requireNonNull(seedSignature, "seedSignature");
    if (payloadMode.streaming()) {
      Objects.requireNonNull(chunkSigner, "chunkSigner"); // SigV2, which signs no body, has none
    }
    if ((payloadMode == PayloadMode.SIGNED_HASH) != (payloadSha256 != null)) {
      throw new IllegalArgumentException("payloadSha256 is set exactly for SIGNED_HASH");
    }
  }
}
