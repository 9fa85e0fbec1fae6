package io.granary.loader.mlperf;

import io.granary.loader.protocol.ObjectClient;
import io.granary.loader.report.OpStats;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The reader threads of one accelerator in one epoch (DLIO's {@code read_threads}). Each thread claims the next
 * file of the accelerator's shard while the samples claimed so far fall short of what the epoch's steps consume,
 * GETs the whole file and streams its body through a reused buffer, handing a sample to the {@link SampleBuffer}
 * each time a sample's bytes have all arrived (the rest of a file's samples at its end). Nothing object-sized is
 * held: a 150 MB unet3d file passes through a 256 KiB buffer.
 *
 * <p>A GET is recorded when its last byte is read: latency from the request to that byte, minus the time the thread
 * waited for room in the prefetch buffer (which is the accelerator's slowness, not the server's). After the epoch's
 * last step, threads finish the GET in hand without producing samples and claim no more, so every GET that started
 * is counted whole. A failed GET aborts the run (see {@link SampleBuffer#fail}).
 */
final class ShardReaders {
  private static final int BUFFER_BYTES = 256 * 1024;

  private final String label;
  private final ObjectClient client;
  private final Dataset dataset;
  private final int[] shard;
  private final long needed;
  private final SampleBuffer buffer;
  private final OpStats gets;
  private final Consumer<String> abort;
  private final AtomicInteger nextFile = new AtomicInteger();
  private final AtomicLong claimed = new AtomicLong();
  private final List<Thread> threads = new ArrayList<>();

  /**
   * @param label thread name prefix, e.g. {@code mlperf-e1-a3}
   * @param needed samples the epoch's steps take from the buffer
   * @param abort called with a one-line reason when a GET fails
   */
  ShardReaders(String label, ObjectClient client, Dataset dataset, int[] shard, long needed, SampleBuffer buffer,
      OpStats gets, Consumer<String> abort) {
    this.label = label;
    this.client = client;
    this.dataset = dataset;
    this.shard = shard;
    this.needed = needed;
    this.buffer = buffer;
    this.gets = gets;
    this.abort = abort;
  }

  void start(int count) {
    for (int i = 0; i < count; i++) {
      Thread t = new Thread(this::run, label + "-r" + i);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
  }

  void join() throws InterruptedException {
    for (Thread t : threads) {
      t.join();
    }
  }

  private void run() {
    byte[] buf = new byte[BUFFER_BYTES];
    int spf = dataset.samplesPerFile();
    while (!buffer.failed()) {
      long c = claimed.get();
      if (c >= needed) {
        return;
      }
      if (!claimed.compareAndSet(c, c + spf)) {
        continue;
      }
      int k = nextFile.getAndIncrement();
      if (k >= shard.length) {
        return; // cannot happen when the steps fit the shard (checked before the run)
      }
      read(shard[k], buf);
    }
  }

  private void read(int file, byte[] buf) {
    String name = dataset.name(file);
    long t0 = System.nanoTime();
    long[] held = new long[1];
    try {
      long n = client.get(name, (in, etag) -> consume(in, file, buf, held));
      gets.ok((System.nanoTime() - t0 - held[0]) / 1000, n);
    } catch (Abandoned e) {
      // the run was aborted by another GET's failure; this one is neither a success nor an error
    } catch (Exception e) {
      gets.error();
      abort.accept("GET " + name + ": " + message(e));
    }
  }

  /** Reads one file's body to the end, producing its samples as their bytes arrive; returns the bytes read. */
  private long consume(InputStream in, int file, byte[] buf, long[] held) throws IOException {
    int spf = dataset.samplesPerFile();
    int produced = 0;
    long boundary = dataset.recordSize(file, 0);
    long pos = 0;
    boolean producing = true;
    for (int n; (n = ObjectClient.advance(in, buf)) >= 0; ) {
      pos += n;
      while (producing && produced < spf - 1 && pos >= boundary) {
        producing = produce(held);
        produced++;
        boundary += dataset.recordSize(file, produced);
      }
    }
    long expected = dataset.fileSize(file);
    if (expected >= 0 && pos != expected) {
      throw new IOException(pos + " bytes, expected " + expected + " (generated with another --seed or "
          + "--samples-per-file?)");
    }
    while (producing && produced < spf) {
      producing = produce(held);
      produced++;
    }
    return pos;
  }

  /** Hands one sample over; false once the epoch has ended. Adds the time it waited for room to {@code held}. */
  private boolean produce(long[] held) throws IOException {
    long waited;
    try {
      waited = buffer.put();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Abandoned();
    }
    if (waited < 0) {
      if (buffer.failed()) {
        throw new Abandoned(); // closes the body: no point reading on
      }
      return false;
    }
    held[0] += waited;
    return true;
  }

  static String message(Throwable e) {
    String m = e.getMessage();
    return m == null || m.isBlank() ? e.getClass().getSimpleName() : m.lines().findFirst().orElse(m);
  }

  /** Thrown inside a body consumer to drop a GET of an aborted run. */
  private static final class Abandoned extends IOException {
    Abandoned() {
      super("abandoned", null);
    }
  }
}
