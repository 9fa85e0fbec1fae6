package io.granary.target.jobs;

import io.granary.backend.BackendException;
import io.granary.backend.RemotePage;
import io.granary.clustermap.bucket.BucketProps;

/** Lists one page of a remote bucket. Blocking; called from a job's walker thread, never an event loop. */
@FunctionalInterface
public interface RemoteLister {
  /** Keys in one listing request: the S3 and GCS maximum, so a walk makes as few calls as it can. */
  int PAGE = 1000;

  /**
   * @param token the previous page's {@link RemotePage#nextToken()}, or null for the first page
   */
  RemotePage page(BucketProps bucket, String prefix, String token) throws BackendException;
}
