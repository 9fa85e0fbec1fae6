package io.granary.target.storage;

import io.granary.clustermap.bucket.BucketProps;
import java.nio.file.Path;

/**
 * Where one object lives on this target: its mountpath (chosen by HRW, unless a lookup found a copy elsewhere), its
 * metadata key and its file.
 *
 * @param bucket the bucket
 * @param name the object name
 * @param digest the placement digest (also picks the lock stripe)
 * @param mountpath the HRW mountpath, or where a lookup found the object
 * @param key the metadata key: {@code provider/bucket/bucketId/name}
 * @param file the object file
 */
public record ObjectLocation(BucketProps bucket, String name, long digest, Mountpath mountpath, String key, Path file) {

  /** The mountpath-relative path of {@code file}. */
  public String relativeFile() {
    return mountpath.root().relativize(file).toString();
  }

  /** The same object on another mountpath (a copy not at its HRW place, or where it moves to). */
  public ObjectLocation on(Mountpath other) {
    return other == mountpath ? this
        : new ObjectLocation(bucket, name, digest, other, key, other.root().resolve(mountpath.root().relativize(file)));
  }
}
