package io.granary.target.validation;

import io.granary.clustermap.bucket.BucketProps;
import java.io.IOException;

/**
 * Rebuilds an object's main copy from what other targets hold of it (erasure-coding slices or replicas) and commits
 * it, fsynced: the repair {@link CopyVerifier} falls back to when no intact copy is left on this target. Blocking.
 */
@FunctionalInterface
public interface MainCopyRebuild {
  /** Nothing held elsewhere: buckets without erasure coding. */
  MainCopyRebuild NONE = (bucket, name) -> false;

  /**
   * @return true when the main copy was rebuilt and committed (or a newer version written meanwhile); false when it
   *     cannot be now (the bucket has no EC, this target does not own the object, too few slices are reachable)
   */
  boolean rebuild(BucketProps bucket, String name) throws IOException;
}
