package io.granary.target.meta;

/**
 * Which remote object version a cached copy holds: what revalidation compares with the remote's current one.
 *
 * @param etag the remote ETag without quotes, or null
 * @param version the S3 VersionId or GCS generation, or null
 * @param lastModified the remote's last-modified time, epoch ms, or 0
 */
public record RemoteVersion(String etag, String version, long lastModified) {
}
