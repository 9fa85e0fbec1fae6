package io.granary.proxy.http;

import io.granary.backend.Backend;
import io.granary.backend.BackendConfig;
import io.granary.backend.BackendException;
import io.granary.backend.Backends;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.RemoteBackend;
import io.granary.common.error.AccessDeniedException;
import io.granary.common.error.BadRequestException;
import io.granary.common.error.BucketNotFoundException;
import io.granary.common.error.RemoteApiException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Checks, before a remote bucket is registered, that its store answers with these settings: one listing of at
 * most one key. A typo in the endpoint, bucket name or credentials fails the registration instead of every
 * later read.
 */
final class RemoteProbe {
  private RemoteProbe() {}

  static void check(Bucket bucket, RemoteBackend settings) {
    BackendConfig config = new BackendConfig(bucket.provider(),
        settings.endpoint() == null ? null : URI.create(settings.endpoint()), settings.region(), settings.pathStyle(),
        settings.credentialsFile() == null ? null : Path.of(settings.credentialsFile()), settings.profile(),
        settings.anonymous(), Duration.ofSeconds(5), Duration.ofSeconds(15), 2, 2);
    try (Backend backend = Backends.open(config)) {
      backend.list(bucket.name(), "", null, null, null, 1);
    } catch (BackendException e) {
      String why = "remote bucket " + bucket + " cannot be registered: " + e.getMessage();
      throw switch (e.kind()) {
        case NOT_FOUND -> new BucketNotFoundException(bucket.toString());
        case ACCESS_DENIED -> new AccessDeniedException(why);
        case OTHER -> e.remoteStatus() == 0 ? BadRequestException.invalidArgument(why)
            : new RemoteApiException(502, "RemoteError", why);
        default -> new RemoteApiException(502, "RemoteError", why);
      };
    }
  }
}
