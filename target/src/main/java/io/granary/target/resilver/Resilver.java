package io.granary.target.resilver;

import io.granary.common.exec.Background;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.mountpath.MountpathsReport;
import io.granary.target.multipart.UploadRelocation;
import io.granary.target.storage.MisplacedListener;
import io.granary.target.storage.MountpathMove;
import io.granary.target.storage.ObjectLocation;
import io.granary.target.storage.ObjectStore;
import java.io.IOException;
import java.time.Clock;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This target's resilver: one walk at a time ({@link ResilverWalk}); a newer change of the mountpaths stops the
 * running walk after its batch and starts its own, which covers everything the older one had left. Also moves the
 * stragglers the store reports ({@link MisplacedListener}): objects committed on a mountpath that stopped being
 * their HRW one while they were written, possibly after the walk had passed them.
 *
 * <p>Threads: the walk on {@code resilver-ID}, its moves on {@code resilver-move-ID-N}, stragglers on
 * {@code resilver-stray-ID}.
 */
public final class Resilver implements MisplacedListener, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Resilver.class);
  /** Objects moved at once: each move is a copy plus three fsyncs, so a few in parallel keep a disk busy. */
  public static final int DEFAULT_THREADS = 4;
  /** Stragglers queued at most (about 200 bytes each); beyond, they wait for the next resilver, still readable. */
  static final int MAX_STRAYS = 10_000;

  private final String self;
  private final ObjectStore store;
  private final ClusterMetadataHolder cluster;
  private final MountpathMove move;
  private final UploadRelocation uploads;
  private final Clock clock;
  private final ExecutorService walker;
  private final ExecutorService moves;
  private final BlockingQueue<ObjectLocation> strays = new ArrayBlockingQueue<>(MAX_STRAYS);
  private final Thread strayWorker;
  private final LongAdder totalMoved = new LongAdder();
  private final LongAdder totalBytesMoved = new LongAdder();
  private ResilverWalk.Transitions transitions; // set once, before the first start
  private ResilverWalk walk; // the latest walk; guarded by this
  private volatile MirroredObjects mirrored = MirroredObjects.NONE; // objects with copies: mirroring repairs them
  private volatile boolean closed;

  /** @param uploads moves multipart uploads with their objects; null when the target has none to move */
  public Resilver(String self, ObjectStore store, ClusterMetadataHolder cluster, UploadRelocation uploads,
      int threads) {
    this(self, store, cluster, uploads,
        Executors.newFixedThreadPool(threads, Background.threads("resilver-move-" + self)));
  }

  /** With the pool moves run on (tests stop a walk mid-way through it). */
  Resilver(String self, ObjectStore store, ClusterMetadataHolder cluster, UploadRelocation uploads,
      ExecutorService moves) {
    this.self = self;
    this.store = store;
    this.cluster = cluster;
    this.move = new MountpathMove(store);
    this.uploads = uploads;
    this.clock = Clock.systemUTC();
    this.walker = Executors.newSingleThreadExecutor(Background.threads("resilver-" + self));
    this.moves = moves;
    this.strayWorker = new Thread(this::moveStrays, "resilver-stray-" + self);
    this.strayWorker.setDaemon(true);
    this.strayWorker.setPriority(Background.PRIORITY);
  }

  /** Installs how objects with mirror copies are dealt with (before the first resilver starts). */
  public void setMirroredObjects(MirroredObjects m) {
    this.mirrored = m == null ? MirroredObjects.NONE : m;
  }

  /** Connects the walks to the mountpath administration and starts moving stragglers. */
  void start(ResilverWalk.Transitions t) {
    this.transitions = t;
    store.setMisplacedListener(this);
    strayWorker.start();
  }

  /** Starts resilver {@code id}, stopping the walk of an older one. */
  synchronized void run(long id, String cause) {
    if (closed) {
      return;
    }
    if (walk != null) {
      walk.stop();
    }
    ResilverCounters counters = new ResilverCounters(id, cause, clock, totalMoved, totalBytesMoved);
    ResilverWalk w = new ResilverWalk(self, store, cluster, move, uploads, moves, counters, transitions,
        mirrored);
    walk = w;
    walker.execute(w);
  }

  /** The latest resilver's progress; {@code idle} with the last id when none ran since start. */
  public synchronized MountpathsReport.Resilver progress(long lastId) {
    return walk == null ? ResilverCounters.idle(lastId) : walk.counters().snapshot();
  }

  /** Whether a resilver walk is running now, for metrics. */
  public synchronized boolean running() {
    return walk != null && MountpathsReport.Resilver.RUNNING.equals(walk.counters().state());
  }

  /** Objects moved between mountpaths since start (walks and stragglers, counted as each moves), for metrics. */
  public long totalMoved() {
    return totalMoved.sum();
  }

  public long totalBytesMoved() {
    return totalBytesMoved.sum();
  }

  @Override
  public void misplaced(ObjectLocation loc) {
    if (!closed && !strays.offer(loc)) {
      log.warn("node={} bucket={} object={} committed off its HRW mountpath; the straggler queue is full: it stays "
          + "on mountpath={} (still read) until the next resilver", self, loc.bucket().bucket(), loc.name(),
          loc.mountpath());
    }
  }

  private void moveStrays() {
    while (!closed) {
      ObjectLocation loc;
      try {
        loc = strays.take();
      } catch (InterruptedException e) {
        return;
      }
      try {
        MountpathMove.Result r = move.move(loc.bucket(), loc.name(), loc.mountpath());
        if (r.outcome() == MountpathMove.Outcome.MOVED) {
          totalMoved.increment();
          totalBytesMoved.add(r.bytes());
        }
      } catch (IOException | RuntimeException e) {
        log.warn("node={} mountpath={} bucket={} object={} written during a mountpath change could not be moved to "
            + "its HRW mountpath; it stays (still read): {}", self, loc.mountpath(), loc.bucket().bucket(),
            loc.name(), e.toString());
      }
    }
  }

  /** Stops the walk and the moves; what is not moved stays readable and is moved by the next start's resilver. */
  @Override
  public void close() {
    synchronized (this) {
      closed = true;
      if (walk != null) {
        walk.stop();
      }
    }
    strayWorker.interrupt();
    walker.shutdownNow();
    moves.shutdownNow();
    try {
      walker.awaitTermination(10, TimeUnit.SECONDS);
      moves.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
