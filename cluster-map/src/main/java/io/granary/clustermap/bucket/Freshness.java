package io.granary.clustermap.bucket;

/**
 * How a remote bucket's cached objects stay current.
 *
 * @param ttlSeconds a warm GET revalidates the object against the remote (ETag, version, size) when it was last
 *     checked longer ago than this; 0 checks on every GET; -1 never checks (unless the request asks)
 * @param sync an object deleted remotely is dropped locally and answers 404 when revalidation finds it gone;
 *     without it the cached copy keeps being served
 */
public record Freshness(long ttlSeconds, boolean sync) {
  /** Revalidate at most once a minute; keep serving objects deleted remotely. */
  public static final Freshness DEFAULT = new Freshness(60, false);

  public Freshness {
    if (ttlSeconds < -1) {
      throw new IllegalArgumentException("ttlSeconds must be >= -1 (-1: never revalidate), got " + ttlSeconds);
    }
  }
}
