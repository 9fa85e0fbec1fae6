package io.granary.target.space;

import io.granary.target.storage.AccessRecorder;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.ObjectLocation;
import java.io.IOException;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Access times of objects, recorded on every read without a RocksDB write on the event loop: a read puts
 * {@code key -> now} in a bounded in-memory map per mountpath, and {@link #flush} (a background task) writes the
 * map to the mountpath's {@code atime} column family in one batch. Eviction asks {@link #unflushed} for accesses not
 * yet written.
 *
 * <p>Memory is bounded: at half of {@code maxPending} entries per mountpath an early flush is requested; at
 * {@code maxPending} accesses to keys not already pending are dropped (counted), which only makes eviction see an
 * older access time for them.
 */
public final class AccessTracker implements AccessRecorder {
  private final Clock clock;
  private final int maxPending;
  private final Runnable flushSoon;
  // One map per readable mountpath (Mountpath has identity equality); SpaceManager adds and drops them as mountpaths
  // come and go, so a read never creates one for a mountpath that left.
  private final Map<Mountpath, ConcurrentHashMap<String, Long>> pending = new ConcurrentHashMap<>();
  private final LongAdder dropped = new LongAdder();

  /**
   * @param maxPending bound on unflushed accesses per mountpath
   * @param flushSoon asks for an early {@link #flush} on a background thread; must not block
   */
  AccessTracker(List<Mountpath> mountpaths, Clock clock, int maxPending, Runnable flushSoon) {
    if (maxPending < 2) {
      throw new IllegalArgumentException("maxPending must be at least 2, got " + maxPending);
    }
    this.clock = clock;
    this.maxPending = maxPending;
    this.flushSoon = flushSoon;
    for (Mountpath mp : mountpaths) {
      track(mp);
    }
  }

  /** Starts recording accesses on {@code mp} (it became readable). */
  void track(Mountpath mp) {
    pending.computeIfAbsent(mp, m -> new ConcurrentHashMap<>());
  }

  /** Drops what is pending for {@code mp} (it is no longer read: its accesses cannot be written any more). */
  void forget(Mountpath mp) {
    pending.remove(mp);
  }

  /** Event loop: one map put. */
  @Override
  public void accessed(ObjectLocation loc) {
    ConcurrentHashMap<String, Long> map = pending.get(loc.mountpath());
    if (map == null) {
      return;
    }
    int size = map.size();
    if (size >= maxPending && !map.containsKey(loc.key())) {
      dropped.increment();
      flushSoon.run();
      return;
    }
    map.put(loc.key(), clock.millis());
    if (size + 1 >= maxPending / 2) {
      flushSoon.run();
    }
  }

  @Override
  public void removed(ObjectLocation loc) {
    ConcurrentHashMap<String, Long> map = pending.get(loc.mountpath());
    if (map != null) {
      map.remove(loc.key());
    }
  }

  @Override
  public void moved(ObjectLocation from, ObjectLocation to) {
    ConcurrentHashMap<String, Long> src = pending.get(from.mountpath());
    Long t = src == null ? null : src.remove(from.key());
    ConcurrentHashMap<String, Long> dst = pending.get(to.mountpath());
    if (t != null && dst != null) {
      dst.merge(to.key(), t, Math::max);
    }
  }

  /** The access of {@code key} on {@code mp} not yet flushed, epoch millis, or 0. */
  public long unflushed(Mountpath mp, String key) {
    ConcurrentHashMap<String, Long> map = pending.get(mp);
    Long t = map == null ? null : map.get(key);
    return t == null ? 0 : t;
  }

  /** The latest known access of {@code key} on {@code mp}: unflushed or recorded, epoch millis, or 0. */
  public long lastAccess(Mountpath mp, String key) throws IOException {
    return Math.max(unflushed(mp, key), mp.meta().atime(key));
  }

  /**
   * Writes pending accesses to each mountpath's metadata, one batch per mountpath. An entry is dropped from memory
   * only if no newer access replaced it meanwhile. Background threads only.
   *
   * @return accesses written
   */
  public int flush() throws IOException {
    int written = 0;
    IOException first = null;
    for (Map.Entry<Mountpath, ConcurrentHashMap<String, Long>> e : pending.entrySet()) {
      ConcurrentHashMap<String, Long> map = e.getValue();
      if (map.isEmpty()) {
        continue;
      }
      Map<String, Long> batch = new HashMap<>(map); // bounded by maxPending
      try {
        e.getKey().meta().putAtimes(batch);
      } catch (IOException ex) {
        first = first == null ? ex : first;
        continue;
      }
      batch.forEach(map::remove); // remove(key, value): a newer access stays for the next flush
      written += batch.size();
    }
    if (first != null) {
      throw first;
    }
    return written;
  }

  /** Accesses not yet flushed, over all mountpaths. */
  public int pendingCount() {
    return pending.values().stream().mapToInt(Map::size).sum();
  }

  /** Accesses dropped because the pending map was full. */
  public long dropped() {
    return dropped.sum();
  }
}
