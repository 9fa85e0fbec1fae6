package io.granary.target.validation;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.exec.Background;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.ObjectStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scrubs of buckets on one target (the {@code scrub} job, docs/protection.md#scrub): a walk of the bucket's object
 * records on every served mountpath (metadata, not directories: what is recorded is what must be intact) that
 * re-hashes each object's main copy and mirror copies and repairs what does not match ({@link CopyVerifier}).
 *
 * <p>Disk-friendly by construction: one thread on the target scrubs one bucket at a time and reads one file at a
 * time through one 256 KiB buffer, so a scrub takes at most one disk stream from the GETs and PUTs beside it. A scrub
 * asked for while one of the same bucket waits is the same scrub; asked for while it runs, it runs again after.
 * Progress is kept in memory: the latest scrub of each bucket since the target started.
 */
public final class Scrubs implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Scrubs.class);
  /** Records read per metadata scan: each batch is checked after its iterator closed. */
  private static final int BATCH = 256;

  /**
   * The latest scrub of a bucket on this target.
   *
   * @param bucket the bucket's key ({@code ais/train})
   * @param state queued, running, succeeded, failed
   * @param objects objects checked so far
   * @param bytes bytes hashed (every copy)
   * @param corrupt copies whose bytes did not match their checksum
   * @param repaired objects repaired (from a copy, or dropped to be fetched again from the remote)
   * @param unrepairable objects with no intact copy and no remote
   * @param error why the scrub failed, or null
   */
  public record Progress(String bucket, String state, long objects, long bytes, long corrupt, long repaired,
      long unrepairable, String error) {
    static Progress queued(String bucket) {
      return new Progress(bucket, "queued", 0, 0, 0, 0, 0, null);
    }
  }

  private final String nodeId;
  private final ObjectStore store;
  private final CopyVerifier verifier;
  private final Function<BucketProps, BucketProps> current;
  private final Map<String, Progress> latest = new LinkedHashMap<>(); // guarded
  private final ExecutorService thread;
  private volatile Consumer<BucketProps> alongside = b -> { };

  /** @param current given a bucket's props, its props now (null: that bucket incarnation is gone) */
  public Scrubs(String nodeId, ObjectStore store, CopyVerifier verifier, Function<BucketProps, BucketProps> current) {
    this.nodeId = nodeId;
    this.store = store;
    this.verifier = verifier;
    this.current = current;
    this.thread = Executors.newSingleThreadExecutor(Background.threads("scrub-" + nodeId));
  }

  /**
   * Installs what else a scrub request starts (erasure coding: an audit of the bucket's slices on their holders).
   * Must not block.
   */
  public void alongside(Consumer<BucketProps> also) {
    this.alongside = also;
  }

  /** Asks for a scrub of {@code bucket}; one waiting already covers it. Never blocks. */
  public void request(BucketProps bucket) {
    alongside.accept(bucket);
    String key = bucket.bucket().key();
    synchronized (latest) {
      Progress p = latest.get(key);
      if (p != null && p.state().equals("queued")) {
        return;
      }
      latest.put(key, Progress.queued(key));
    }
    thread.execute(() -> run(bucket));
  }

  /** The latest scrub of each bucket scrubbed since start. */
  public List<Progress> progress() {
    synchronized (latest) {
      return List.copyOf(latest.values());
    }
  }

  private void run(BucketProps asked) {
    String key = asked.bucket().key();
    long[] n = new long[5]; // objects, bytes, corrupt, repaired, unrepairable
    try {
      publish(key, "running", n, null);
      BucketProps b = current.apply(asked);
      if (b != null) {
        walk(b, key, n);
      }
      publish(key, "succeeded", n, null);
      log.info("node={} bucket={} scrub done: objects={} bytes={} corrupt={} repaired={} unrepairable={}", nodeId,
          asked.bucket(), n[0], n[1], n[2], n[3], n[4]);
    } catch (IOException | RuntimeException e) {
      publish(key, "failed", n, e.toString());
      log.warn("node={} bucket={} scrub failed after {} objects: {}", nodeId, asked.bucket(), n[0], e.toString());
    }
  }

  private void walk(BucketProps b, String key, long[] n) throws IOException {
    String prefix = ObjectStore.bucketPrefix(b);
    for (Mountpath mp : store.mountpathSet().served()) {
      String after = null;
      while (!thread.isShutdown()) {
        List<String> names = new ArrayList<>(BATCH);
        String[] last = {null};
        mp.meta().scan(prefix, after, (k, meta) -> {
          last[0] = k;
          if (isMain(b, k.substring(prefix.length()), mp, meta)) {
            names.add(k.substring(prefix.length()));
          }
          return names.size() < BATCH;
        });
        if (last[0] == null) {
          break;
        }
        for (String name : names) {
          CopyVerifier.Verdict v = verifier.verify(b, name, CopyVerifier.Source.SCRUB);
          if (v.outcome() == CopyVerifier.Outcome.UNCHECKED && v.copies() == 0) {
            continue; // gone meanwhile, or nothing to compare with
          }
          n[0]++;
          n[1] += v.bytes();
          n[2] += v.corrupt();
          n[3] += v.outcome() == CopyVerifier.Outcome.REPAIRED || v.outcome() == CopyVerifier.Outcome.REFETCH ? 1 : 0;
          n[4] += v.outcome() == CopyVerifier.Outcome.UNREPAIRABLE ? 1 : 0;
        }
        after = last[0];
        publish(key, "running", n, null);
      }
    }
  }

  /**
   * Whether the record {@code meta} read on {@code mp} stands for its object in the walk: a main copy (on its HRW
   * mountpath or not), or a mirror copy whose main record is gone. The object's other copies are checked with it.
   */
  private boolean isMain(BucketProps b, String name, Mountpath mp, ObjectMeta meta) {
    if (!meta.isMirrorCopyOn(mp.id())) {
      return true;
    }
    try {
      var loc = store.locate(b, name);
      return loc.mountpath().meta().get(loc.key()) == null;
    } catch (IOException e) {
      return true;
    }
  }

  private void publish(String key, String state, long[] n, String error) {
    synchronized (latest) {
      latest.put(key, new Progress(key, state, n[0], n[1], n[2], n[3], n[4], error));
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
    try {
      thread.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
