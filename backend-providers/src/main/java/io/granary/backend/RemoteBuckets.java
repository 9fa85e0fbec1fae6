package io.granary.backend;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.Provider;
import io.granary.clustermap.bucket.RemoteBackend;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The open {@link Backend}s of remote buckets, one per provider and settings: a client does not depend on the
 * bucket, so buckets with the same endpoint and credentials share one (and its connection pool), and a bucket
 * registered again with the same settings finds its client warm. Clients live until {@link #close}; there are only
 * as many as distinct settings.
 */
public final class RemoteBuckets implements AutoCloseable {
  private record Key(Provider provider, RemoteBackend settings) {
  }

  private final Map<Key, Backend> open = new ConcurrentHashMap<>();
  private final Duration readTimeout;
  private final int maxConnections;

  public RemoteBuckets(Duration readTimeout, int maxConnections) {
    this.readTimeout = readTimeout;
    this.maxConnections = maxConnections;
  }

  /** The backend of a remote bucket, opened on first use. */
  public Backend backend(BucketProps bucket) throws BackendException {
    if (!bucket.isRemote()) {
      throw new IllegalArgumentException(bucket.bucket() + " is not a remote bucket");
    }
    Key key = new Key(bucket.bucket().provider(), bucket.backend());
    Backend b = open.get(key);
    if (b != null) {
      return b;
    }
    synchronized (this) {
      b = open.get(key);
      if (b == null) {
        b = Backends.open(configOf(bucket));
        open.put(key, b);
      }
      return b;
    }
  }

  /** The backend configuration of a remote bucket. */
  public BackendConfig configOf(BucketProps bucket) {
    RemoteBackend r = bucket.backend();
    return new BackendConfig(bucket.bucket().provider(), r.endpoint() == null ? null : URI.create(r.endpoint()),
        r.region(), r.pathStyle(), r.credentialsFile() == null ? null : Path.of(r.credentialsFile()), r.profile(),
        r.anonymous(), null, readTimeout, 0, maxConnections);
  }

  @Override
  public synchronized void close() {
    open.values().forEach(Backend::close);
    open.clear();
  }
}
