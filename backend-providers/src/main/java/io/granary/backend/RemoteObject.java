package io.granary.backend;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What a remote store says about one object version.
 *
 * @param key the object's key
 * @param size content length in bytes
 * @param etag the ETag without quotes (S3: MD5 hex for single-part objects, {@code hex-N} for multipart; GCS: its
 *     etag), or null
 * @param version the S3 VersionId or the GCS generation, or null when the store does not version
 * @param lastModified epoch milliseconds, or 0 when unknown
 * @param md5 lowercase hex MD5 of the whole content when the store vouches for it (S3: a non-multipart ETag;
 *     GCS: md5Hash), else null
 * @param crc32c lowercase hex (8 digits, big-endian) CRC32C of the content when known (GCS crc32c), else null
 * @param contentType Content-Type, or null
 * @param userMeta user metadata, lowercase names without {@code x-amz-meta-}; possibly empty
 */
public record RemoteObject(String key, long size, String etag, String version, long lastModified, String md5,
    String crc32c, String contentType, Map<String, String> userMeta) {
  public RemoteObject {
    Objects.requireNonNull(key, "key");
    userMeta = userMeta == null || userMeta.isEmpty() ? Map.of()
        : Collections.unmodifiableMap(new TreeMap<>(userMeta));
  }
}
