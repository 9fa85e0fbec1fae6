package io.granary.proxy.s3;

import io.granary.common.s3.Owner;

/** The one owner every bucket and object has: a Granary cluster is a single tenant. */
final class S3Owner {
  static final Owner OWNER = Owner.CLUSTER;

  private S3Owner() {}
}
