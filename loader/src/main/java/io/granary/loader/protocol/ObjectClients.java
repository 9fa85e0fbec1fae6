package io.granary.loader.protocol;

import io.granary.common.auth.ClusterSigner;
import io.granary.loader.LoadOptions;
import java.net.URI;

/** Makes the client of one endpoint for a run's protocol. */
public final class ObjectClients {
  private ObjectClients() {}

  /** {@code share} is how many workers will use this endpoint (the S3 client's connection pool size). */
  public static ObjectClient open(LoadOptions o, URI endpoint, int share) {
    return switch (o.protocol()) {
      case NATIVE -> new NativeClient(endpoint, o.bucket(), o.direct() ? ClusterSigner.of(o.clusterSecret()) : null);
      case S3 -> new S3ObjectClient(endpoint, o.bucket(), o.accessKey(), o.secretKey(), share, o.direct());
      case HTTP -> new HttpGetClient(endpoint);
    };
  }
}
