package io.granary.target.mirror;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.exec.Background;
import io.granary.target.storage.BucketRecords;
import io.granary.target.storage.MirrorCopies;
import io.granary.target.storage.MountpathSet;
import io.granary.target.storage.StoredName;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Walks of a bucket's object metadata that queue every object whose copies differ from what the bucket asks for
 * ({@link MirrorRepair#needsRepair}): AIStore's {@code make-n-copies}. A walk runs when {@code mirror.copies}
 * changes, when the queue was full (objects it left out), and at start for every mirrored bucket (copies a crash or a
 * stop left unmade: their main records list fewer copies, so nothing else has to remember them).
 *
 * <p>One thread, one bucket at a time; a bucket asked for again while it is walked is walked once more after.
 */
public final class MirrorWalks implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MirrorWalks.class);

  /**
   * Progress of the latest walk of a bucket (the {@code make-n-copies} job of that bucket on this target).
   *
   * @param bucket the bucket's key ({@code ais/train})
   * @param copies the setting the walk brings the objects to
   * @param examined records read so far (main copies and mirror copies, on every served mountpath)
   * @param queued objects queued for copies added or removed
   * @param running whether the walk still runs (its queued objects may still wait in the queue after it)
   */
  public record Progress(String bucket, int copies, long examined, long queued, boolean running) {
  }

  private final String nodeId;
  private final MirrorCopies copies;
  private final MirrorQueue queue;
  private final Function<BucketProps, BucketProps> current;
  private final LinkedHashMap<String, BucketProps> asked = new LinkedHashMap<>(); // guarded
  private final Map<String, Progress> latest = new LinkedHashMap<>(); // guarded by asked
  private final Thread thread;
  private boolean closed; // guarded by asked

  public MirrorWalks(String nodeId, MirrorCopies copies, MirrorQueue queue,
      Function<BucketProps, BucketProps> current) {
    this.nodeId = nodeId;
    this.copies = copies;
    this.queue = queue;
    this.current = current;
    this.thread = new Thread(this::run, "mirror-walk-" + nodeId);
    this.thread.setDaemon(true);
    this.thread.setPriority(Background.PRIORITY);
    this.thread.start();
  }

  /** Asks for a walk of {@code bucket}; a walk asked for already and not started yet covers it. Never blocks. */
  public void request(BucketProps bucket) {
    synchronized (asked) {
      asked.putIfAbsent(bucket.bucket().key() + "/" + bucket.id(), bucket);
      // shown as running from now: a job status read before the walk starts must not see the previous walk's end
      String key = bucket.bucket().key();
      Progress last = latest.get(key);
      latest.put(key, new Progress(key, bucket.protection().mirrorCopies(), last == null ? 0 : last.examined(),
          last == null ? 0 : last.queued(), true));
      asked.notifyAll();
    }
  }

  /** The latest walk of each bucket walked since start. */
  public Map<String, Progress> progress() {
    synchronized (asked) {
      return Map.copyOf(latest);
    }
  }

  private void run() {
    while (true) {
      BucketProps next;
      synchronized (asked) {
        while (!closed && asked.isEmpty()) {
          try {
            asked.wait();
          } catch (InterruptedException e) {
            return;
          }
        }
        if (closed) {
          return;
        }
        var it = asked.entrySet().iterator();
        next = it.next().getValue();
        it.remove();
      }
      try {
        walk(next);
      } catch (InterruptedException e) {
        return;
      } catch (IOException | RuntimeException e) {
        log.warn("node={} bucket={} mirror walk failed: {}", nodeId, next.bucket(), e.toString());
        String key = next.bucket().key();
        Progress p;
        synchronized (this.asked) {
          p = latest.get(key);
        }
        publish(key, p == null ? new Progress(key, 0, 0, 0, false)
            : new Progress(key, p.copies(), p.examined(), p.queued(), false));
      }
    }
  }

  private void walk(BucketProps asked) throws IOException, InterruptedException {
    BucketProps b = current.apply(asked);
    if (b == null) {
      publish(asked.bucket().key(), new Progress(asked.bucket().key(), 0, 0, 0, false));
      return;
    }
    int n = b.protection().mirrorCopies();
    long[] examined = {0};
    long[] queued = {0};
    String bucketKey = b.bucket().key();
    publish(bucketKey, new Progress(bucketKey, n, 0, 0, true));
    MountpathSet set = copies.mountpaths();
    boolean done = BucketRecords.walk(set.served(), b, (mp, name, meta) -> {
      examined[0]++;
      if (MirrorRepair.needsRepair(copies.locate(b, name), mp, meta, set, n)) {
        if (!queue.put(new StoredName(b, name))) {
          return false; // closed
        }
        queued[0]++;
      }
      return true;
    }, () -> publish(bucketKey, new Progress(bucketKey, n, examined[0], queued[0], true)));
    if (!done) {
      return;
    }
    publish(bucketKey, new Progress(bucketKey, n, examined[0], queued[0], false));
    log.info("node={} bucket={} make-n-copies walk done: copies={} examined={} queued={}", nodeId, b.bucket(), n,
        examined[0], queued[0]);
  }

  private void publish(String bucket, Progress p) {
    synchronized (asked) {
      latest.put(bucket, p);
    }
  }

  @Override
  public void close() {
    synchronized (asked) {
      closed = true;
      asked.notifyAll();
    }
    thread.interrupt(); // a walk waiting for room in a closed queue returns; one scanning stops at its next put
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
