package io.granary.target.coldget;

import io.granary.clustermap.bucket.BucketProps;
import java.util.concurrent.CompletableFuture;

/**
 * Brings one remote object into this target's cache, as a cold GET does but with no client waiting: what
 * prefetch jobs call for each object the target owns. Concurrent fills and GETs of one object share one fetch.
 */
public interface CacheFiller {
  /**
   * Makes {@code name} cached and current.
   *
   * @param latest revalidate a cached copy against the remote even within the bucket's TTL
   * @return completes with what happened, or exceptionally with a {@link io.granary.backend.BackendException} or
   *     {@link io.granary.common.error.ApiException} (out of space: 507)
   */
  CompletableFuture<FillResult> fill(BucketProps bucket, String name, boolean latest);

  /**
   * The outcome of one fill.
   *
   * @param outcome what happened
   * @param bytes bytes fetched from the remote (0 when the cached copy was current)
   */
  record FillResult(Outcome outcome, long bytes) {
    /** What a fill did. */
    public enum Outcome {
      /** A cached copy was already there and current; nothing was fetched. */
      ALREADY_CACHED,
      /** The object was fetched (it was missing or stale). */
      FETCHED,
      /** The remote has no such object. */
      NOT_FOUND
    }
  }
}
