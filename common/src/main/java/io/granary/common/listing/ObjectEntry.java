package io.granary.common.listing;

/**
 * One object in a listing.
 *
 * @param name object name
 * @param size content length in bytes
 * @param checksum content checksum
 * @param etag the ETag clients see, without quotes (the S3 ETag, else the checksum value)
 * @param mtime when this version was stored, epoch ms
 */
public record ObjectEntry(String name, long size, Checksum checksum, String etag, long mtime) {
}
