package io.granary.target.storage;

import io.granary.clustermap.bucket.BucketProps;
import java.nio.file.Path;

/**
 * Where one object lives on this target: its mountpath (chosen by HRW), its metadata key and its file.
 *
 * @param bucket the bucket
 * @param name the object name
 * @param digest the placement digest (also picks the lock stripe)
 * @param mountpath the HRW mountpath
 * @param key the metadata key: {@code provider/bucket/bucketId/name}
 * @param file the object file
 */
public record ObjectLocation(BucketProps bucket, String name, long digest, Mountpath mountpath, String key, Path file) {

  /** The mountpath-relative path of {@code file}. */
  public String relativeFile() {
    return mountpath.root().relativize(file).toString();
  }
}
