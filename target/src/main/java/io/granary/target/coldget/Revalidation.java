package io.granary.target.coldget;

import io.granary.backend.RemoteObject;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.meta.RemoteVersion;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When a cached copy must be checked against the remote (the bucket's TTL, or the request asks), and whether the
 * remote's current version is the one cached. Check times live in memory: after a restart every object is
 * checked once more, which costs a HEAD and never serves anything stale.
 */
final class Revalidation {
  private static final int MAX_TRACKED = 1 << 20;

  private final ConcurrentHashMap<String, Long> checkedAt = new ConcurrentHashMap<>();

  /** Whether a warm read of {@code meta} must first ask the remote. */
  boolean mustRevalidate(BucketProps bucket, String key, ObjectMeta meta, boolean latest, long now) {
    if (latest) {
      return true;
    }
    long ttl = bucket.freshness().ttlSeconds();
    if (ttl < 0) {
      return false;
    }
    long last = Math.max(meta.mtime(), checkedAt.getOrDefault(key, 0L));
    return now - last >= ttl * 1000;
  }

  void checked(String key, long now) {
    if (checkedAt.size() >= MAX_TRACKED) {
      checkedAt.clear(); // bounded memory; forgetting only costs an extra HEAD per object
    }
    checkedAt.put(key, now);
  }

  void forget(String key) {
    checkedAt.remove(key);
  }

  /**
   * Whether the remote object is the version cached: sizes equal, and versions equal when both have one, else
   * ETags equal when both have one. Without either, the size alone cannot tell, and the copy counts as changed.
   */
  static boolean sameVersion(ObjectMeta cached, RemoteObject remote) {
    if (cached.size() != remote.size()) {
      return false;
    }
    RemoteVersion rv = cached.remote();
    String cachedEtag = rv != null ? rv.etag() : cached.etag();
    if (rv != null && rv.version() != null && remote.version() != null) {
      return rv.version().equals(remote.version());
    }
    if (cachedEtag != null && remote.etag() != null) {
      return unquote(cachedEtag).equals(unquote(remote.etag()));
    }
    return false;
  }

  private static String unquote(String etag) {
    return etag.length() >= 2 && etag.startsWith("\"") && etag.endsWith("\"") ? etag.substring(1, etag.length() - 1)
        : etag;
  }
}
