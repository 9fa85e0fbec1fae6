package io.granary.testkit;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;

/** One stored generation of a fake GCS object: its metadata, and the file holding its bytes. */
record GcsObject(
    String bucket,
    String name,
    long generation,
    long metageneration,
    long size,
    String md5Hash, // base64 of the MD5 digest
    String crc32c, // base64 of the big-endian CRC32C
    String contentType,
    Map<String, String> metadata,
    Instant timeCreated,
    Instant updated,
    Path file) {

  /** GCS etags are opaque; this one changes with every generation and metageneration. */
  String etag() {
    return Base64.getEncoder()
        .encodeToString(("g" + generation + "m" + metageneration).getBytes(StandardCharsets.US_ASCII));
  }

  GcsObject withMetadata(String newContentType, Map<String, String> newMetadata, Instant now) {
    return new GcsObject(bucket, name, generation, metageneration + 1, size, md5Hash, crc32c, newContentType,
        newMetadata, timeCreated, now, file);
  }
}
