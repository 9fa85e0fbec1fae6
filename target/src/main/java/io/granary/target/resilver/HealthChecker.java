package io.granary.target.resilver;

import io.granary.target.storage.FaultListener;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.ObjectStore;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mountpath health check (AIStore's FSHC): an I/O error on a mountpath in a request's path triggers a quick
 * check of that mountpath off the event loop; if the check fails too the mountpath is disabled (out of placement,
 * never read again) and the target carries on with the others. One check per mountpath at a time; after a check
 * passes, errors on that mountpath are not checked again for {@link #QUIET_MILLIS} (an error that was not the
 * disk's, such as a client's bad input, must not turn into a check per request).
 *
 * <p>The check ({@link #probe}): the mountpath's directory is still the one opened (same device and inode: a
 * directory renamed away, or a disk unmounted, shows another or none), a probe file under {@code .granary/} can be
 * written, fsynced, read back and deleted, and {@code objects/} can be listed.
 *
 * <p>Threads: {@link #ioError} on any thread, without blocking; checks on {@code fshc-ID}.
 */
public final class HealthChecker implements FaultListener, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HealthChecker.class);
  static final long QUIET_MILLIS = 10_000;
  private static final byte[] PROBE = "granary mountpath health probe\n".getBytes(StandardCharsets.UTF_8);

  /** Disables a mountpath that failed its check. */
  @FunctionalInterface
  interface OnFailure {
    /** @return whether it was disabled now (false: it had left already) */
    boolean failed(Mountpath mp, String reason);
  }

  private final String self;
  private final ObjectStore store;
  private final ThreadPoolExecutor checks;
  private final Set<Mountpath> checking = ConcurrentHashMap.newKeySet();
  private final Map<Mountpath, Long> passedAt = new ConcurrentHashMap<>();
  private final AtomicLong failures = new AtomicLong();
  private volatile OnFailure onFailure = (mp, reason) -> false;

  public HealthChecker(String self, ObjectStore store) {
    this.self = self;
    this.store = store;
    this.checks = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(64),
        new DefaultThreadFactory("fshc-" + self, true));
  }

  void onFailure(OnFailure f) {
    this.onFailure = f;
  }

  /** Mountpaths disabled because their health check failed, since start: a counter for metrics. */
  public long failures() {
    return failures.get();
  }

  @Override
  public void ioError(Mountpath mp, IOException cause) {
    Long passed = passedAt.get(mp);
    if (passed != null && System.currentTimeMillis() - passed < QUIET_MILLIS) {
      return;
    }
    if (!checking.add(mp)) {
      return; // a check of it is queued or running
    }
    try {
      checks.execute(() -> {
        try {
          check(mp, cause);
        } finally {
          checking.remove(mp);
        }
      });
    } catch (RejectedExecutionException e) {
      checking.remove(mp); // shutting down
    }
  }

  /** Checks {@code mp} now, in the caller's thread; disables it when it fails. Returns the problem, or null. */
  String check(Mountpath mp, IOException cause) {
    if (!store.mountpathSet().isReadable(mp)) {
      return null; // left already
    }
    String problem = probe(mp);
    if (problem == null) {
      passedAt.put(mp, System.currentTimeMillis());
      log.warn("node={} mountpath={} I/O error ({}) but the mountpath passed its health check", self, mp,
          cause == null ? "none" : cause.toString());
      return null;
    }
    if (onFailure.failed(mp, problem)) {
      failures.incrementAndGet();
      log.error("node={} mountpath={} failed its health check and is disabled: {} (after {}); the target goes on "
          + "with its other mountpaths", self, mp, problem, cause == null ? "a check" : cause.toString());
    }
    return problem;
  }

  /** What is wrong with {@code mp}, or null when it works. Blocks on its disk. */
  static String probe(Mountpath mp) {
    try {
      Object key = Files.readAttributes(mp.root(), BasicFileAttributes.class).fileKey();
      if (!Objects.equals(key, mp.rootKey())) {
        return "directory " + mp.root() + " is not the one opened (renamed away or its disk unmounted)";
      }
    } catch (IOException e) {
      return "directory " + mp.root() + " cannot be read: " + e;
    }
    Path probe = mp.systemDir().resolve("probe." + Long.toHexString(System.nanoTime()));
    try {
      try (FileChannel ch = FileChannel.open(probe, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
          StandardOpenOption.READ)) {
        ByteBuffer out = ByteBuffer.wrap(PROBE);
        while (out.hasRemaining()) {
          ch.write(out);
        }
        ch.force(true);
        ByteBuffer in = ByteBuffer.allocate(PROBE.length);
        long pos = 0;
        while (in.hasRemaining() && ch.read(in, pos) > 0) {
          pos = in.position();
        }
        if (!java.util.Arrays.equals(in.array(), PROBE)) {
          return "probe file " + probe + " read back other bytes than written";
        }
      } finally {
        Files.deleteIfExists(probe);
      }
      try (DirectoryStream<Path> ds = Files.newDirectoryStream(mp.objectsDir())) {
        ds.iterator().hasNext();
      }
      return null;
    } catch (IOException | RuntimeException e) {
      return "probe failed: " + e;
    }
  }

  @Override
  public void close() {
    checks.shutdownNow();
  }
}
