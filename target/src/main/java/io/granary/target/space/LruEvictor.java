package io.granary.target.space;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.ObjectLocation;
import io.granary.target.storage.ObjectStore;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * One LRU eviction run over one mountpath: frees space by deleting cached copies of remote-bucket objects, least
 * recently accessed first. Local buckets are never touched (their objects exist nowhere else).
 *
 * <p>Design (after AIStore's {@code space/lru.go}): memory stays bounded whatever the object count. A pass scans the
 * mountpath's metadata of remote buckets (object records merged with the {@code atime} column), keeping in a
 * max-heap the {@code heapLimit} oldest candidates; the heap's top is the newest kept, replaced whenever an older one
 * shows up. The pass then evicts them oldest first until enough is freed. If the heap was full and more must be
 * freed, another pass finds the next oldest. An object's access time is the latest of its recorded atime, unflushed
 * atime and mtime (a fresh fetch counts as an access). Objects accessed within the dont-evict window are spared.
 * Each eviction re-checks under the object's write lock that it was neither overwritten nor read since the scan.
 *
 * <p>Runs on a space-manager thread; blocks on RocksDB and file deletes.
 */
final class LruEvictor {
  /** How much a run still has to free; re-evaluated at each pass. */
  @FunctionalInterface
  interface Excess {
    /** Bytes above the low watermark now (0 or less when done). */
    long bytes() throws IOException;
  }

  /** One object that may be evicted, as seen by a scan. */
  record Candidate(BucketProps bucket, String name, long size, long mtime, long atime) {
  }

  private static final Comparator<Candidate> OLDEST_FIRST = Comparator.comparingLong(Candidate::atime);

  private final ObjectStore store;
  private final AccessTracker tracker;
  private final Clock clock;
  private final int heapLimit;

  LruEvictor(ObjectStore store, AccessTracker tracker, Clock clock, int heapLimit) {
    if (heapLimit < 1) {
      throw new IllegalArgumentException("heap limit must be at least 1, got " + heapLimit);
    }
    this.store = store;
    this.tracker = tracker;
    this.clock = clock;
    this.heapLimit = heapLimit;
  }

  EvictionRun run(Mountpath mp, Collection<BucketProps> buckets, Duration dontEvict, Excess excess)
      throws IOException {
    long started = System.nanoTime();
    List<BucketProps> remote = buckets.stream().filter(BucketProps::isRemote).toList();
    long objects = 0;
    long bytes = 0;
    int passes = 0;
    long spared = 0;
    boolean reachedLow;
    while (true) {
      long toFree = excess.bytes();
      if (toFree <= 0) {
        reachedLow = true;
        break;
      }
      passes++;
      long cutoff = clock.millis() - dontEvict.toMillis();
      long[] sparedThisPass = {0};
      List<Candidate> oldest = scan(mp, remote, cutoff, sparedThisPass);
      spared = sparedThisPass[0];
      long freed = 0;
      int evicted = 0;
      for (Candidate c : oldest) {
        if (freed >= toFree) {
          break;
        }
        long f = evict(mp, c);
        if (f >= 0) {
          evicted++;
          freed += f;
        }
      }
      objects += evicted;
      bytes += freed;
      boolean mayBeMore = oldest.size() == heapLimit;
      if (evicted == 0 || (!mayBeMore && freed < toFree)) { // nothing left to evict, or no progress
        reachedLow = excess.bytes() <= 0;
        break;
      }
    }
    return new EvictionRun(mp.toString(), objects, bytes, passes, spared, reachedLow,
        Duration.ofNanos(System.nanoTime() - started));
  }

  /** The up to {@code heapLimit} least recently accessed candidates not accessed after {@code cutoff}, oldest first. */
  private List<Candidate> scan(Mountpath mp, List<BucketProps> remote, long cutoff, long[] spared)
      throws IOException {
    PriorityQueue<Candidate> heap = new PriorityQueue<>(Math.min(heapLimit, 1024), OLDEST_FIRST.reversed());
    for (BucketProps b : remote) {
      String prefix = ObjectStore.bucketPrefix(b);
      mp.meta().scanAccess(prefix, (key, size, mtime, atime) -> {
        long at = Math.max(Math.max(atime, mtime), tracker.unflushed(mp, key));
        if (at > cutoff) {
          spared[0]++;
        } else if (heap.size() < heapLimit) {
          heap.add(new Candidate(b, key.substring(prefix.length()), size, mtime, at));
        } else if (at < heap.peek().atime()) {
          heap.poll();
          heap.add(new Candidate(b, key.substring(prefix.length()), size, mtime, at));
        }
        return true;
      });
    }
    List<Candidate> out = new ArrayList<>(heap);
    out.sort(OLDEST_FIRST);
    return out;
  }

  /** Evicts one candidate unless it moved, changed or was read since the scan; bytes freed or -1. */
  private long evict(Mountpath mp, Candidate c) throws IOException {
    ObjectLocation loc = store.locate(c.bucket(), c.name());
    if (loc.mountpath() != mp) { // not at its HRW place (mountpaths changed): resilver's business, not LRU's
      return -1;
    }
    return store.evict(loc, c.mtime(),
        recorded -> Math.max(recorded, tracker.unflushed(mp, loc.key())) <= c.atime());
  }
}
