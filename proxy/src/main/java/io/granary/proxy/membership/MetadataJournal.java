package io.granary.proxy.membership;

import io.granary.common.membership.ClusterMetadata;

/**
 * Where the primary records each new metadata version before anyone sees it. With a fixed primary there is none
 * (its data directory is the record); under Kubernetes Lease election it is a ConfigMap, so a newly elected primary
 * resumes from the last version, and a write that conflicts tells a deposed primary it must stop.
 */
@FunctionalInterface
public interface MetadataJournal {
  /** Nothing recorded beyond the primary's own disk. */
  MetadataJournal NONE = md -> { };

  /**
   * Records {@code md}; the change is not made unless this returns.
   *
   * @throws io.granary.common.error.ServiceUnavailableException {@code NotPrimary} when this proxy's term ended,
   *     {@code PrimaryUnreachable}-like codes when the record cannot be written now
   */
  void record(ClusterMetadata md);
}
