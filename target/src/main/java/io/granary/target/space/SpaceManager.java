package io.granary.target.space;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.target.CacheConfig;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.ObjectStore;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Space management of one target: installs the access recorder and the watermark guard in the object store,
 * measures each mountpath every {@code spaceCheckInterval}, flushes access times every second, and runs LRU
 * eviction of a mountpath when it is above the high watermark (at most one run per mountpath at a time).
 *
 * <p>Threads: a timer thread ({@code space-ID}) measures and flushes; eviction runs on {@code lru-ID-N}, one per
 * mountpath at most. Nothing here runs on an event loop except the guard and recorder the store calls.
 */
public final class SpaceManager implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SpaceManager.class);
  /** Candidates one eviction pass keeps in memory: about 200 bytes each. */
  public static final int DEFAULT_HEAP_LIMIT = 10_000;
  /** Unflushed access times kept per mountpath: about 150 bytes each. */
  public static final int DEFAULT_MAX_PENDING = 65_536;
  private static final Duration FLUSH_INTERVAL = Duration.ofSeconds(1);

  private final String nodeId;
  private final ObjectStore store;
  private final CacheConfig cfg;
  private final Supplier<Collection<BucketProps>> buckets;
  private final Clock clock;
  private final CapacityMeter meter;
  private final AccessTracker tracker;
  private final LruEvictor evictor;
  private final WatermarkGuard guard;
  private final SpaceStats stats = new SpaceStats();
  // Per mountpath (identity equality), made as mountpaths are first seen: they come and go at run time.
  private final Map<Mountpath, AtomicBoolean> running = new ConcurrentHashMap<>();
  private final Map<Mountpath, AtomicLong> exhaustedAt = new ConcurrentHashMap<>(); // 0: last run reached low
  private final AtomicBoolean flushQueued = new AtomicBoolean();
  private final ScheduledExecutorService timer;
  private final ExecutorService evictors;
  private volatile boolean closed;

  /**
   * @param buckets the buckets of the current cluster metadata (eviction walks the remote ones)
   */
  public SpaceManager(String nodeId, ObjectStore store, CacheConfig cfg, Supplier<Collection<BucketProps>> buckets,
      Clock clock) {
    this(nodeId, store, cfg, buckets, clock, DEFAULT_HEAP_LIMIT, DEFAULT_MAX_PENDING);
  }

  SpaceManager(String nodeId, ObjectStore store, CacheConfig cfg, Supplier<Collection<BucketProps>> buckets,
      Clock clock, int heapLimit, int maxPending) {
    this.nodeId = nodeId;
    this.store = store;
    this.cfg = cfg;
    this.buckets = buckets;
    this.clock = clock;
    this.meter = new CapacityMeter(cfg.capacityBytes(), store.mountpaths());
    this.tracker = new AccessTracker(store.mountpaths(), clock, maxPending, this::flushSoon);
    this.evictor = new LruEvictor(store, tracker, clock, heapLimit);
    this.guard = new WatermarkGuard(nodeId, meter, cfg.highWatermark(), cfg.fullWatermark(),
        mp -> requestEviction(mp, true), stats);
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "space-" + nodeId));
    AtomicInteger n = new AtomicInteger();
    this.evictors = Executors.newFixedThreadPool(store.mountpaths().size(),
        r -> daemon(r, "lru-" + nodeId + "-" + n.incrementAndGet()));
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /** Hooks into the store and starts the periodic measurement and access-time flush. */
  public void start() {
    for (Mountpath mp : store.mountpaths()) { // before the guard: it reads the counted parts
      refresh(mp);
    }
    store.setAccessRecorder(tracker);
    store.setSpaceGuard(guard);
    store.onMountpathsChanged((old, now) -> {
      for (Mountpath mp : now.readable()) {
        tracker.track(mp);
      }
      for (Mountpath mp : old.readable()) {
        if (!now.isReadable(mp)) { // it left: nothing more is written to it
          tracker.forget(mp);
          meter.forget(mp);
          exhaustedAt.remove(mp);
        }
      }
    });
    long check = cfg.spaceCheckInterval().toMillis();
    timer.scheduleWithFixedDelay(this::checkAll, check, check, TimeUnit.MILLISECONDS);
    timer.scheduleWithFixedDelay(this::flushQuietly, FLUSH_INTERVAL.toMillis(), FLUSH_INTERVAL.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  /** The access recorder (for callers that serve reads without {@link ObjectStore#open}). */
  public AccessTracker accessTracker() {
    return tracker;
  }

  public SpaceStats stats() {
    return stats;
  }

  /** Measures {@code mp} now (counters and the last count of multipart parts; or a statvfs). */
  public Capacity capacity(Mountpath mp) throws IOException {
    return meter.measure(mp);
  }

  /** Measures every mountpath and starts eviction where usage is above the high watermark. Timer thread. */
  void checkAll() {
    for (Mountpath mp : store.mountpaths()) {
      refresh(mp);
      try {
        if (meter.measure(mp).above(cfg.highWatermark())) {
          requestEviction(mp, false);
        }
      } catch (IOException | RuntimeException e) {
        log.warn("node={} mountpath={} measuring used space failed: {}", nodeId, mp, e.toString());
      }
    }
  }

  private void refresh(Mountpath mp) {
    try {
      meter.refresh(mp);
    } catch (IOException | RuntimeException e) {
      log.warn("node={} mountpath={} counting multipart parts failed: {}", nodeId, mp, e.toString());
    }
  }

  /**
   * Starts an eviction run of {@code mp} in the background unless one is running. A periodic run starts when usage
   * is above the high watermark. An on-demand run (a PUT or cold GET found the mountpath above high, or refused a
   * write) starts above the low watermark, so a refused write that would not fit makes room even below high; it is
   * skipped for one check interval after a run that could not reach the low watermark: without newly evictable
   * objects it would only scan again.
   *
   * @return whether a run was started
   */
  boolean requestEviction(Mountpath mp, boolean onDemand) {
    if (closed) {
      return false;
    }
    long exhausted = exhausted(mp).get();
    if (onDemand && exhausted != 0 && clock.millis() - exhausted < cfg.spaceCheckInterval().toMillis()) {
      return false;
    }
    AtomicBoolean busy = running.computeIfAbsent(mp, m -> new AtomicBoolean());
    if (!busy.compareAndSet(false, true)) {
      return false;
    }
    try {
      evictors.execute(() -> {
        try {
          runLocked(mp, onDemand ? cfg.lowWatermark() : cfg.highWatermark());
        } finally {
          busy.set(false);
        }
      });
      return true;
    } catch (RejectedExecutionException e) { // closing
      busy.set(false);
      return false;
    }
  }

  /**
   * Runs eviction of {@code mp} in the calling thread if it is above the high watermark; null when a run is already
   * in progress. For tests and manual triggers.
   */
  public EvictionRun evictNow(Mountpath mp) throws IOException {
    AtomicBoolean busy = running.computeIfAbsent(mp, m -> new AtomicBoolean());
    if (!busy.compareAndSet(false, true)) {
      return null;
    }
    try {
      return evict(mp, cfg.highWatermark());
    } finally {
      busy.set(false);
    }
  }

  private void runLocked(Mountpath mp, int startAbove) {
    try {
      evict(mp, startAbove);
    } catch (IOException | RuntimeException e) {
      log.error("node={} mountpath={} LRU eviction failed", nodeId, mp, e);
    }
  }

  /** Evicts down to the low watermark if usage is above {@code startAbove} percent. */
  private EvictionRun evict(Mountpath mp, int startAbove) throws IOException {
    Capacity before = meter.measure(mp);
    if (!before.above(startAbove)) {
      return new EvictionRun(mp.toString(), 0, 0, 0, 0, true, Duration.ZERO);
    }
    long low = before.bytesAt(cfg.lowWatermark());
    EvictionRun run = evictor.run(mp, buckets.get(), cfg.dontEvictWindow(),
        () -> meter.measure(mp).usedBytes() - low);
    stats.recordRun(run);
    exhausted(mp).set(run.reachedLow() ? 0 : Math.max(1, clock.millis()));
    Capacity after = meter.measure(mp);
    log.info("node={} mountpath={} LRU evicted {} objects, {} bytes in {} passes, {} ms; used {}% -> {}% of {} bytes "
        + "(high {}%, low {}%){}", nodeId, mp, run.objects(), run.bytes(), run.passes(), run.took().toMillis(),
        String.format("%.1f", before.usedPercent()), String.format("%.1f", after.usedPercent()),
        after.capacityBytes(), cfg.highWatermark(), cfg.lowWatermark(), run.reachedLow() ? ""
            : "; low watermark not reached: the rest is local data or read within " + cfg.dontEvictWindow());
    return run;
  }

  private AtomicLong exhausted(Mountpath mp) {
    return exhaustedAt.computeIfAbsent(mp, m -> new AtomicLong());
  }

  /** Writes pending access times now. */
  public void flushAccessTimes() throws IOException {
    tracker.flush();
  }

  private void flushSoon() {
    if (closed || !flushQueued.compareAndSet(false, true)) {
      return;
    }
    try {
      timer.execute(() -> {
        flushQueued.set(false);
        flushQuietly();
      });
    } catch (RejectedExecutionException e) {
      flushQueued.set(false);
    }
  }

  private void flushQuietly() {
    try {
      tracker.flush();
    } catch (IOException | RuntimeException e) {
      log.warn("node={} writing access times failed: {}", nodeId, e.toString());
    }
  }

  /** Stops the timer, waits for eviction runs to finish, flushes access times. Call before closing the store. */
  @Override
  public void close() {
    closed = true;
    timer.shutdownNow();
    evictors.shutdown();
    try {
      if (!evictors.awaitTermination(30, TimeUnit.SECONDS)) {
        log.warn("node={} LRU eviction still running at shutdown", nodeId);
      }
      timer.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    store.setSpaceGuard(null);
    store.setAccessRecorder(null);
    flushQuietly();
  }
}
