package io.granary.common.s3;

import java.time.Instant;

/**
 * One object of a ListObjects answer: a {@code <Contents>} element.
 *
 * @param key object key
 * @param lastModified when the object was last written
 * @param etag its ETag, quoted or not (written quoted)
 * @param size content length in bytes
 * @param storageClass S3 storage class; {@code STANDARD} for every Granary object
 */
public record ListedObject(String key, Instant lastModified, String etag, long size, String storageClass) {
  public static final String STANDARD = "STANDARD";

  public ListedObject(String key, Instant lastModified, String etag, long size) {
    this(key, lastModified, etag, size, STANDARD);
  }
}
