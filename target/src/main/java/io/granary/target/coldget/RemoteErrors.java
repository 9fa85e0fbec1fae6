package io.granary.target.coldget;

import io.granary.backend.BackendException;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.error.AccessDeniedException;
import io.granary.common.error.ApiException;
import io.granary.common.error.ObjectNotFoundException;
import io.granary.common.error.RangeNotSatisfiableException;
import io.granary.common.error.RemoteApiException;
import io.granary.common.error.ServiceUnavailableException;

/** What a client sees for a remote store's failure: 404 stays 404, 403 stays 403, an outage is a 503 to retry. */
final class RemoteErrors {
  static final String REMOTE_UNAVAILABLE = "RemoteUnavailable";
  static final String REMOTE_ERROR = "RemoteError";

  private RemoteErrors() {}

  static ApiException toApi(BucketProps bucket, String name, Throwable t) {
    if (t instanceof ApiException api) {
      return api;
    }
    if (!(t instanceof BackendException e)) {
      return new RemoteApiException(502, REMOTE_ERROR, "reading " + bucket.bucket() + "/" + name
          + " from its remote store failed: " + t);
    }
    return switch (e.kind()) {
      case NOT_FOUND -> new ObjectNotFoundException(bucket.bucket().toString(), name);
      case ACCESS_DENIED -> new AccessDeniedException("the remote store refused access to " + bucket.bucket() + "/"
          + name + ": " + e.getMessage());
      case INVALID_RANGE -> new RangeNotSatisfiableException(e.getMessage(), -1);
      case UNAVAILABLE, CHANGED -> new ServiceUnavailableException(REMOTE_UNAVAILABLE, "the remote store of "
          + bucket.bucket() + " is unavailable: " + e.getMessage(), 1);
      case TRUNCATED, OTHER -> new RemoteApiException(502, REMOTE_ERROR, "the remote store of " + bucket.bucket()
          + " failed: " + e.getMessage());
    };
  }
}
