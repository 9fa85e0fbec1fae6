package io.granary.common.error;

import io.netty.handler.codec.http.HttpResponseStatus;

/** 409: the request conflicts with the current state (bucket exists or is not empty, stale or foreign metadata). */
public final class ConflictException extends ApiException {
  public static final String BUCKET_EXISTS = "BucketAlreadyExists";
  public static final String BUCKET_NOT_EMPTY = "BucketNotEmpty";
  /** A bucket property that cannot change once the bucket holds objects (erasure coding D and P). */
  public static final String PROPERTY_FIXED = "BucketPropertyFixed";
  /** The bucket's properties changed between a request's checks and its write. */
  public static final String CONCURRENT_CHANGE = "ConcurrentChange";
  public static final String CLUSTER_MISMATCH = "ClusterMismatch";
  public static final String STALE_VERSION = "StaleVersion";
  /** Metadata from a primary whose term ended (a deposed primary under Lease election): it may not be applied. */
  public static final String STALE_EPOCH = "StaleEpoch";
  public static final String INVALID_STATE = "InvalidNodeState";
  /** The node was decommissioned and left the map: it may not join again under its id. */
  public static final String NODE_DECOMMISSIONED = "NodeDecommissioned";
  /** The directory is a mountpath already: of this target, of another target, or of another process. */
  public static final String MOUNTPATH_IN_USE = "MountpathInUse";
  /** Detaching or disabling it would leave the target no available mountpath. */
  public static final String LAST_MOUNTPATH = "LastMountpath";

  public ConflictException(String code, String message) {
    super(HttpResponseStatus.CONFLICT, code, message);
  }
}
