package io.granary.target.ec;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.exec.Background;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.mirror.MirrorQueue;
import io.granary.target.storage.BucketRecords;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.StoredName;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The background work of erasure coding on one target, one thread ({@code ec-walk-NODE}), one task at a time:
 *
 * <ul>
 *   <li>walks of a bucket's records that queue every object this target owns whose current version has no
 *       "encoded" mark: asked for at start, after a full queue, when a target becomes active again, and
 *       {@link #RETRY_MILLIS} after an encode failed;</li>
 *   <li>sweeps of the slices held here for orphans ({@link OrphanSweep}): at start and when a target becomes
 *       active again;</li>
 *   <li>audits ({@link SliceAudit}): walks that also ask each holder whether it still holds the slices of the
 *       objects this target owns: at start, when a target becomes active again, and when a holder says it lost a
 *       mountpath ({@code POST /v1/ec/audit}), and, after the slices held here are re-hashed ({@link SliceScrub}),
 *       with a scrub of the bucket.</li>
 * </ul>
 */
final class EcWalks implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EcWalks.class);
  /** How long after an encode failed every EC bucket is walked again (a holder may be back). */
  static final long RETRY_MILLIS = 30_000;

  private final String nodeId;
  private final ObjectStore store;
  private final ClusterMetadataHolder cluster;
  private final Function<BucketProps, BucketProps> current;
  private final MirrorQueue queue;
  private final Unencoded unencoded;
  private final OrphanSweep sweep;
  private final Runnable placementWalked;
  private final LinkedHashMap<String, BucketProps> asked = new LinkedHashMap<>(); // guarded
  private final java.util.Set<String> placementAsked = new java.util.HashSet<>(); // guarded by asked
  /** Buckets to audit, each with the holders to ask ({@link #ALL_HOLDERS}: every one). Guarded by asked. */
  private final java.util.Map<String, java.util.Set<String>> auditAsked = new java.util.HashMap<>();
  static final java.util.Set<String> ALL_HOLDERS = java.util.Set.of("*");
  private final java.util.Set<String> scrubAsked = new java.util.HashSet<>(); // guarded by asked
  private final SliceAudit audit;
  private final SliceScrub scrub;
  private final Runnable audited;
  private final Thread thread;
  private boolean sweepAsked; // guarded by asked
  private boolean closed; // guarded by asked
  private volatile boolean failedSinceWalk;

  EcWalks(String nodeId, ObjectStore store, ClusterMetadataHolder cluster, Function<BucketProps, BucketProps> current,
      MirrorQueue queue, Unencoded unencoded, OrphanSweep sweep, Runnable placementWalked, SliceAudit audit,
      SliceScrub scrub, Runnable audited) {
    this.nodeId = nodeId;
    this.audit = audit;
    this.scrub = scrub;
    this.audited = audited;
    this.store = store;
    this.cluster = cluster;
    this.current = current;
    this.queue = queue;
    this.unencoded = unencoded;
    this.sweep = sweep;
    this.placementWalked = placementWalked;
    this.thread = new Thread(this::run, "ec-walk-" + nodeId);
    this.thread.setDaemon(true);
    this.thread.setPriority(Background.PRIORITY);
    this.thread.start();
  }

  /** Whether an object's record found by a walk is one this target owns and has not encoded (that version). */
  @FunctionalInterface
  interface Unencoded {
    boolean test(BucketProps b, String name, ObjectMeta meta);
  }

  /** Asks for a walk of {@code b}; one asked already and not started covers it. Never blocks. */
  void request(BucketProps b) {
    synchronized (asked) {
      asked.putIfAbsent(b.bucket().key() + "/" + b.id(), b);
      asked.notifyAll();
    }
  }

  /** Asks for a walk of every erasure-coded bucket. */
  void requestAll() {
    cluster.snapshot().ifPresent(s -> s.buckets().buckets().values().stream()
        .filter(b -> b.protection().ecData() > 0).forEach(this::request));
  }

  /**
   * Asks for a walk of every erasure-coded bucket after a placement change settled (every object is on its new
   * owner): objects whose holders changed are encoded again; each such walk done is counted.
   */
  void requestPlacement() {
    cluster.snapshot().ifPresent(s -> s.buckets().buckets().values().stream()
        .filter(b -> b.protection().ecData() > 0).forEach(b -> {
          synchronized (asked) {
            placementAsked.add(b.bucket().key() + "/" + b.id());
          }
          request(b);
        }));
  }

  /** Asks for an audit of every erasure-coded bucket: a walk that also asks holders for the slices it marks sent. */
  void requestAudit(java.util.Set<String> holders) {
    cluster.snapshot().ifPresent(s -> requestAudit(s.buckets().buckets().values(), holders));
  }

  /**
   * Asks for an audit of each erasure-coded bucket of {@code buckets} that asks {@code holders} (target ids, or
   * {@link #ALL_HOLDERS}); audits asked for before it runs add their holders.
   */
  void requestAudit(java.util.Collection<BucketProps> buckets, java.util.Set<String> holders) {
    buckets.stream().filter(b -> b.protection().ecData() > 0).forEach(b -> {
      synchronized (asked) {
        auditAsked.merge(b.bucket().key() + "/" + b.id(), holders, (a, c) -> {
          if (a.contains("*") || c.contains("*")) {
            return ALL_HOLDERS;
          }
          java.util.Set<String> both = new java.util.HashSet<>(a);
          both.addAll(c);
          return both;
        });
      }
      request(b);
    });
  }

  /**
   * With a scrub of {@code b}: the slices held here for it are re-hashed ({@link SliceScrub}), then the bucket is
   * audited.
   */
  void requestScrub(BucketProps b) {
    synchronized (asked) {
      scrubAsked.add(b.bucket().key() + "/" + b.id());
    }
    requestAudit(java.util.List.of(b), ALL_HOLDERS);
  }

  /** Asks for a sweep of the slices held here. */
  void requestSweep() {
    synchronized (asked) {
      sweepAsked = true;
      asked.notifyAll();
    }
  }

  /** An encode failed: every EC bucket is walked again after {@link #RETRY_MILLIS}. */
  void encodeFailed() {
    failedSinceWalk = true;
  }

  private void run() {
    while (true) {
      BucketProps next;
      synchronized (asked) {
        if (!closed && asked.isEmpty() && !sweepAsked) {
          try {
            asked.wait(RETRY_MILLIS);
          } catch (InterruptedException e) {
            return;
          }
        }
        if (closed) {
          return;
        }
        if (asked.isEmpty() && !sweepAsked) {
          if (failedSinceWalk) {
            failedSinceWalk = false;
            requestAll(); // takes the lock again: reentrant
          }
          continue;
        }
        if (asked.isEmpty()) {
          sweepAsked = false;
          next = null;
        } else {
          var it = asked.entrySet().iterator();
          next = it.next().getValue();
          it.remove();
        }
      }
      try {
        if (next == null) {
          sweep.run();
        } else {
          walk(next);
        }
      } catch (InterruptedException e) {
        return;
      } catch (IOException | RuntimeException e) {
        log.warn("node={} {} failed: {}", nodeId, next == null ? "slice sweep" : "ec walk of " + next.bucket(),
            e.toString());
      }
    }
  }

  private void walk(BucketProps b) throws IOException, InterruptedException {
    boolean placement;
    java.util.Set<String> auditing;
    boolean scrubbing;
    synchronized (asked) {
      placement = placementAsked.remove(b.bucket().key() + "/" + b.id());
      auditing = auditAsked.remove(b.bucket().key() + "/" + b.id());
      scrubbing = scrubAsked.remove(b.bucket().key() + "/" + b.id());
    }
    BucketProps now = current.apply(b);
    if (scrubbing && now != null && now.protection().ecData() > 0) {
      scrub.run(now);
    }
    walkBucket(b, auditing);
    if (placement) {
      placementWalked.run();
    }
  }

  /** @param auditing the holders an audit asks ({@link #ALL_HOLDERS}: every one); null: no audit */
  private void walkBucket(BucketProps asked, java.util.Set<String> auditing) throws IOException,
      InterruptedException {
    BucketProps b = current.apply(asked);
    if (b == null || b.protection().ecData() == 0) {
      return;
    }
    long[] examined = {0};
    long[] queued = {0};
    SliceAudit.Pass pass = auditing == null ? null : audit.begin(b,
        auditing.contains("*") ? h -> true : auditing::contains, name -> queue.put(new StoredName(b, name)));
    boolean done = BucketRecords.walk(store.mountpathSet().served(), b, (mp, name, meta) -> {
      examined[0]++;
      if (meta.isMirrorCopyOn(mp.id())) {
        return true;
      }
      if (unencoded.test(b, name, meta)) {
        if (!queue.put(new StoredName(b, name))) {
          return false; // closed
        }
        queued[0]++;
      } else if (pass != null) {
        pass.add(name, meta);
      }
      return true;
    }, () -> { });
    long missing = pass == null || !done ? 0 : pass.finish();
    if (done) {
      log.info("node={} bucket={} ec walk done: examined={} queued={}{}", nodeId, b.bucket(), examined[0], queued[0],
          pass == null ? "" : " audited, slices missing=" + missing);
      if (pass != null) {
        audited.run();
      }
    }
  }

  @Override
  public void close() {
    synchronized (asked) {
      closed = true;
      asked.notifyAll();
    }
    thread.interrupt();
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
