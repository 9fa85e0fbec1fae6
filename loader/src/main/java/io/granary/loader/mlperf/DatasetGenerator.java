package io.granary.loader.mlperf;

import io.granary.loader.LoaderException;
import io.granary.loader.protocol.ObjectClient;
import io.granary.loader.report.StatsTable;
import io.granary.loader.workload.Content;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code --generate} (PUT through the API) and {@code --generate-dir} (plain files, e.g. for nginx to serve): writes
 * the dataset's files with their seeded sizes and content ({@link Content}, a function of the seed and the name),
 * streamed, never held whole, {@code --workers} at a time, with a progress line every 10 seconds.
 *
 * <p>What is there already is skipped: objects the bucket listing shows (by name only: objects of another
 * {@code --seed} or {@code --samples-per-file} under the same names are found out when a run reads them and the
 * size is wrong), and files in the directory that have the right size. A file is written under a temporary name and
 * renamed, so an interrupted run leaves no short file behind.
 */
final class DatasetGenerator {
  private static final int WRITE_BUFFER = 1024 * 1024;
  private static final long PROGRESS_NANOS = 10_000_000_000L;

  private DatasetGenerator() {}

  /** What a generation did. */
  record Summary(int files, int present, int written, long bytes, double seconds) {
    String line(String where) {
      return String.format(Locale.ROOT, "generate: %d files in %s: %d present, %d written (%s) in %.1fs", files,
          where, present, written, StatsTable.bytes(bytes), seconds);
    }
  }

  /** A unit of work: writes file {@code i} and returns its bytes, or -1 when it was already there. */
  @FunctionalInterface
  private interface Task {
    long write(int file) throws Exception;
  }

  /** PUTs the files not in {@code existing}, spread over the endpoints' clients. */
  static Summary put(Dataset d, List<ObjectClient> clients, Set<String> existing, int workers, PrintStream out) {
    return run(d, workers, out, "PUT", f -> {
      String name = d.name(f);
      if (existing.contains(name)) {
        return -1;
      }
      long size = d.fileSize(f);
      long seed = d.contentSeed(f);
      clients.get(f % clients.size()).put(name, size, () -> Content.stream(seed, size));
      return size;
    });
  }

  /** Writes the files under {@code dir} (DIR/NAME), skipping those present with the right size. */
  static Summary writeDir(Dataset d, Path dir, int workers, PrintStream out) {
    Path root = dir.toAbsolutePath().normalize();
    return run(d, workers, out, "write", f -> {
      Path p = root.resolve(d.name(f)).normalize();
      if (!p.startsWith(root) || p.equals(root)) {
        throw new IOException("'" + d.name(f) + "' is not a path under " + root);
      }
      long size = d.fileSize(f);
      if (Files.isRegularFile(p) && Files.size(p) == size) {
        return -1;
      }
      Files.createDirectories(p.getParent());
      Path tmp = p.resolveSibling(p.getFileName() + ".part");
      byte[] buf = new byte[(int) Math.min(WRITE_BUFFER, Math.max(1, size))];
      long seed = d.contentSeed(f);
      try (OutputStream os = Files.newOutputStream(tmp)) {
        for (long pos = 0; pos < size; ) {
          int n = (int) Math.min(buf.length, size - pos);
          Content.fill(seed, pos, buf, 0, n);
          os.write(buf, 0, n);
          pos += n;
        }
      }
      Files.move(tmp, p, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      return size;
    });
  }

  private static Summary run(Dataset d, int workers, PrintStream out, String verb, Task task) {
    // Say what is about to be written before the first byte: DLIO's ResNet-50 default is 137 GiB.
    out.printf(Locale.ROOT, "generate: %s up to %d files, %s in all (files already there are kept); --files N "
        + "makes the dataset smaller%n", verb, d.files(), StatsTable.bytes(d.totalBytes()));
    long start = System.nanoTime();
    AtomicInteger present = new AtomicInteger();
    AtomicInteger written = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    AtomicLong bytes = new AtomicLong();
    AtomicLong lastProgress = new AtomicLong(start);
    AtomicReference<String> firstError = new AtomicReference<>();
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(workers, Math.max(1, d.files())), r -> {
      Thread t = new Thread(r, "mlperf-generate");
      t.setDaemon(true);
      return t;
    });
    for (int f = 0; f < d.files(); f++) {
      int file = f;
      pool.execute(() -> {
        try {
          long n = task.write(file);
          if (n < 0) {
            present.incrementAndGet();
          } else {
            written.incrementAndGet();
            bytes.addAndGet(n);
          }
        } catch (Exception e) {
          failed.incrementAndGet();
          firstError.compareAndSet(null, verb + " " + d.name(file) + ": " + ShardReaders.message(e));
        }
        long now = System.nanoTime();
        long last = lastProgress.get();
        if (now - last >= PROGRESS_NANOS && lastProgress.compareAndSet(last, now)) {
          out.printf(Locale.ROOT, "generate: %d of %d files done, %s written, %.0fs%n",
              present.get() + written.get() + failed.get(), d.files(), StatsTable.bytes(bytes.get()),
              (now - start) / 1e9);
        }
      });
    }
    pool.shutdown();
    try {
      while (!pool.awaitTermination(1, TimeUnit.HOURS)) {
        // large datasets on slow disks: keep waiting
      }
    } catch (InterruptedException e) {
      pool.shutdownNow();
      Thread.currentThread().interrupt();
      throw new LoaderException("generate: interrupted");
    }
    if (failed.get() > 0) {
      throw new LoaderException("generate: " + failed.get() + " of " + d.files() + " files failed; first: "
          + firstError.get());
    }
    return new Summary(d.files(), present.get(), written.get(), bytes.get(), (System.nanoTime() - start) / 1e9);
  }
}
