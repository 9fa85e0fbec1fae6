package io.granary.common.error;

import io.netty.handler.codec.http.HttpResponseStatus;

/** 404: the bucket does not exist in this cluster's bucket metadata. */
public final class BucketNotFoundException extends ApiException {
  public BucketNotFoundException(String bucket) {
    super(HttpResponseStatus.NOT_FOUND, "BucketNotFound", "bucket '" + bucket + "' does not exist");
  }
}
