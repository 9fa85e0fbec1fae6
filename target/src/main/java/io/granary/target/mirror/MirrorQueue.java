package io.granary.target.mirror;

import io.granary.target.storage.StoredName;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The objects waiting for their mirror copies (or their erasure coding), and the workers that make them: a fixed number
 * of threads and at most {@code capacity} objects waiting, each once (an object queued again before its turn is not
 * queued twice).
 *
 * <p>When full, {@link #offer} does not wait: it is called by commits on the disk pool (and by reads on event loops),
 * whose waiting would hold up PUTs that have nothing to do with mirroring. The object is left out and its bucket
 * is handed to {@code overflow}, which walks the bucket's metadata later and queues what lacks copies with
 * {@link #put}, waiting for room (a walk thread may wait). Nothing is lost to a full queue: the main record,
 * listing fewer copies than asked for, is the marker the walk finds, and it survives a restart too.
 *
 * <p>Threads: {@code workers} threads named {@code THREADS-i} ({@code mirror-NODE-i}, {@code ec-NODE-i});
 * {@link #offer} from any thread.
 */
public final class MirrorQueue implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MirrorQueue.class);

  private final String nodeId;
  private final int capacity;
  private final Consumer<StoredName> work;      // makes the object's copies; must not throw
  private final Consumer<StoredName> overflow;  // given an object left out: its bucket gets walked
  private final LinkedHashMap<String, StoredName> waiting = new LinkedHashMap<>(); // by key, oldest first; guarded
  private final Thread[] threads;
  private boolean closed; // guarded by waiting
  private int busy; // objects a worker is copying now; guarded by waiting

  /**
   * @param work makes one object's copies (a worker thread runs it; exceptions are its own to handle)
   * @param overflow told of each object {@link #offer} left out because the queue was full
   * @param threadName the workers' name before their number, e.g. {@code mirror-NODE}
   */
  public MirrorQueue(String nodeId, String threadName, int workers, int capacity, Consumer<StoredName> work,
      Consumer<StoredName> overflow) {
    if (workers < 1 || capacity < 1) {
      throw new IllegalArgumentException("workers and capacity must be >= 1: " + workers + ", " + capacity);
    }
    this.nodeId = nodeId;
    this.capacity = capacity;
    this.work = work;
    this.overflow = overflow;
    this.threads = new Thread[workers];
    for (int i = 0; i < workers; i++) {
      threads[i] = new Thread(this::run, threadName + "-" + i);
      threads[i].setDaemon(true);
      threads[i].start();
    }
  }

  private static String key(StoredName n) {
    return n.bucket().bucket().key() + "/" + n.bucket().id() + "/" + n.name();
  }

  /**
   * Queues the object unless it waits already; never blocks.
   *
   * @return false when the queue was full (the object went to {@code overflow}) or is closed
   */
  public boolean offer(StoredName n) {
    String k = key(n);
    synchronized (waiting) {
      if (closed) {
        return false;
      }
      if (waiting.containsKey(k)) {
        return true;
      }
      if (waiting.size() < capacity) {
        waiting.put(k, n);
        waiting.notifyAll();
        return true;
      }
    }
    overflow.accept(n);
    return false;
  }

  /** Queues the object, waiting while the queue is full (walk threads only). False when closed. */
  public boolean put(StoredName n) throws InterruptedException {
    String k = key(n);
    synchronized (waiting) {
      while (!closed && waiting.size() >= capacity && !waiting.containsKey(k)) {
        waiting.wait();
      }
      if (closed) {
        return false;
      }
      waiting.putIfAbsent(k, n);
      waiting.notifyAll();
      return true;
    }
  }

  /** Objects waiting now, and those being copied: once 0, every object queued so far has its copies. */
  public int depth() {
    synchronized (waiting) {
      return waiting.size() + busy;
    }
  }

  private void run() {
    while (true) {
      StoredName next;
      synchronized (waiting) {
        while (!closed && waiting.isEmpty()) {
          try {
            waiting.wait();
          } catch (InterruptedException e) {
            return;
          }
        }
        if (closed) {
          return;
        }
        Iterator<Map.Entry<String, StoredName>> it = waiting.entrySet().iterator();
        next = it.next().getValue();
        it.remove();
        busy++;
        waiting.notifyAll(); // room for a waiting put
      }
      try {
        work.accept(next);
      } catch (RuntimeException e) {
        log.warn("node={} bucket={} object={}: queued work failed: {}", nodeId, next.bucket().bucket(), next.name(),
            e.toString());
      } finally {
        synchronized (waiting) {
          busy--;
        }
      }
    }
  }

  /** Stops the workers after the objects they are copying; what waits is left (the walk at the next start finds it). */
  @Override
  public void close() {
    synchronized (waiting) {
      closed = true;
      waiting.notifyAll();
    }
    for (Thread t : threads) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
