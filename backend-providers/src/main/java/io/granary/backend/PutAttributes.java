package io.granary.backend;

import java.util.Map;

/**
 * What a write-through PUT sends along with the bytes.
 *
 * @param size the file's length
 * @param md5Hex lowercase hex MD5 of the content, sent as Content-MD5 (S3) or md5Hash (GCS) so the remote
 *     verifies what it stores; null to skip
 * @param contentType Content-Type, or null
 * @param userMeta user metadata (lowercase names without {@code x-amz-meta-}), possibly empty
 */
public record PutAttributes(long size, String md5Hex, String contentType, Map<String, String> userMeta) {
  public PutAttributes {
    userMeta = userMeta == null ? Map.of() : Map.copyOf(userMeta);
  }
}
