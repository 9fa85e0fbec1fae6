package io.granary.proxy.s3;

import io.granary.common.error.BadRequestException;
import io.granary.common.http.RequestPath;

/**
 * The bucket and key of a path-style S3 request, served at the root ({@code /BUCKET/KEY}) and under
 * {@code /s3/} ({@code /s3/BUCKET/KEY}).
 *
 * @param prefix "/" or "/s3/", as the request used it
 * @param bucket the bucket name, decoded; empty for the service (ListBuckets)
 * @param rawKey the key as sent (percent-encoded), empty when the request names only a bucket
 */
public record S3Path(String prefix, String bucket, String rawKey) {

  public static S3Path parse(RequestPath path) {
    String raw = path.raw();
    String prefix = raw.startsWith("/s3/") || raw.equals("/s3") ? "/s3/" : "/";
    String rest = raw.length() <= prefix.length() ? "" : raw.substring(prefix.length());
    int slash = rest.indexOf('/');
    String bucket = RequestPath.decode(slash < 0 ? rest : rest.substring(0, slash));
    String key = slash < 0 ? "" : rest.substring(slash + 1);
    if (bucket.isEmpty() && !key.isEmpty()) {
      throw new BadRequestException("InvalidBucketName", "the path names a key but no bucket");
    }
    return new S3Path(prefix, bucket, key);
  }

  public boolean service() {
    return bucket.isEmpty();
  }

  public boolean hasKey() {
    return !rawKey.isEmpty();
  }

  /** The decoded key. */
  public String key() {
    return RequestPath.decode(rawKey);
  }
}
