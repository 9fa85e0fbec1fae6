package io.granary.backend.gcs;

import com.google.cloud.storage.BlobInfo;
import io.granary.backend.RemoteObject;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;

/** Builds {@link RemoteObject}s from GCS object metadata. */
final class GcsObjects {
  private GcsObjects() {}

  static RemoteObject of(BlobInfo b) {
    Long size = b.getSize();
    Long generation = b.getGeneration();
    var updated = b.getUpdateTimeOffsetDateTime();
    return new RemoteObject(b.getName(), size == null ? 0 : size, b.getEtag(),
        generation == null ? null : Long.toString(generation),
        updated == null ? 0 : updated.toInstant().toEpochMilli(), hexOfBase64(b.getMd5()),
        hexOfBase64(b.getCrc32c()), b.getContentType(), meta(b.getMetadata()));
  }

  /** GCS sends md5Hash and crc32c base64-encoded; callers compare lowercase hex (crc32c: 8 digits, big-endian). */
  static String hexOfBase64(String base64) {
    if (base64 == null || base64.isEmpty()) {
      return null;
    }
    try {
      return HexFormat.of().formatHex(Base64.getDecoder().decode(base64));
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** GCS allows null values (a deleted key in a patch); the contract has none. */
  private static Map<String, String> meta(Map<String, String> m) {
    if (m == null || m.isEmpty()) {
      return Map.of();
    }
    Map<String, String> out = new HashMap<>();
    m.forEach((k, v) -> {
      if (k != null && v != null) {
        out.put(k, v);
      }
    });
    return out;
  }

  static Long generationOf(RemoteObject o) {
    if (o == null || o.version() == null) {
      return null;
    }
    try {
      return Long.parseLong(o.version());
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
