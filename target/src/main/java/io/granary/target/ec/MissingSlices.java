package io.granary.target.ec;

import io.granary.clustermap.bucket.BucketProps;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The slices an audit found missing on their holders, per object, until the object's encode sends them again:
 * only those; the holders that still hold theirs are left alone (a disk lost with a thousand slices costs a
 * thousand slices sent, not D+P thousand). An object is added before it is queued and taken when its encode runs,
 * so the encode queue's bound is this one's. Lost with the process: the audit at the next start finds them again.
 * An encode that cannot send them (a holder offline, a send failed) clears the object's mark instead: it is
 * encoded whole again later, as any unencoded object.
 */
final class MissingSlices {
  /** The holders that lack their slice of {@code version}. */
  record Missing(String version, Set<String> holders) {
  }

  private final ConcurrentHashMap<String, Missing> byObject = new ConcurrentHashMap<>();

  private static String key(BucketProps b, String name) {
    return b.id() + "/" + name;
  }

  /** Holder {@code holder} lacks its slice of {@code version} (a newer version replaces what an older one lacked). */
  void add(BucketProps b, String name, String version, String holder) {
    byObject.compute(key(b, name), (k, m) -> {
      if (m == null || !m.version().equals(version)) {
        return new Missing(version, Set.of(holder));
      }
      Set<String> more = new HashSet<>(m.holders());
      more.add(holder);
      return new Missing(version, Set.copyOf(more));
    });
  }

  /** Takes what the object's holders lack; null when no audit found anything missing. */
  Missing take(BucketProps b, String name) {
    return byObject.remove(key(b, name));
  }
}
