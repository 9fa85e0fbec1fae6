package io.granary.common.listing;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * One object in a listing.
 *
 * @param name object name
 * @param size content length in bytes
 * @param checksum content checksum, or null when unknown (a remote object not cached)
 * @param etag the ETag clients see, without quotes (the S3 ETag, else the checksum value)
 * @param mtime when this version was stored, epoch ms
 * @param cached in a listing of a remote bucket: whether a copy is cached in the cluster; null otherwise
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ObjectEntry(String name, long size, Checksum checksum, String etag, long mtime, Boolean cached) {
  /** An entry of a local listing. */
  public ObjectEntry(String name, long size, Checksum checksum, String etag, long mtime) {
    this(name, size, checksum, etag, mtime, null);
  }
}
