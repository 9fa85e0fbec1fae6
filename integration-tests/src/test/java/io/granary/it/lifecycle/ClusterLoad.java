package io.granary.it.lifecycle;

import io.granary.it.support.Content;
import io.granary.it.support.Http;
import io.granary.it.support.Names;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;

/**
 * What users do to a cluster while it changes shape: readers GET every object of a dataset in a loop, checking every
 * byte (CRC32), and a writer PUTs new objects, remembering those acknowledged. Every failed read (any status but
 * 200, a short or wrong body) is counted and the first ones kept.
 */
final class ClusterLoad implements AutoCloseable {
  private final String endpoint;
  private final String bucket;
  private final Dataset data;
  private final AtomicBoolean stop = new AtomicBoolean();
  private final AtomicLong reads = new AtomicLong();
  private final AtomicInteger failedReads = new AtomicInteger();
  private final List<String> failures = Collections.synchronizedList(new ArrayList<>());
  private final Map<String, Long> written = new ConcurrentHashMap<>(); // acknowledged new objects: name -> crc
  private final AtomicInteger failedWrites = new AtomicInteger();
  private final List<String> writeFailures = Collections.synchronizedList(new ArrayList<>());
  private final List<Thread> threads = new ArrayList<>();
  private final List<Integer> readerOffsets = new ArrayList<>();
  private final List<AtomicLong> readerDone = new ArrayList<>(); // reads each reader completed

  ClusterLoad(String endpoint, String bucket, Dataset data) {
    this.endpoint = endpoint;
    this.bucket = bucket;
    this.data = data;
  }

  /** Starts {@code readers} readers (each over every object, in its own order) and, with {@code writer}, a writer. */
  ClusterLoad start(int readers, boolean writer, String writePrefix) {
    for (int r = 0; r < readers; r++) {
      int offset = r * data.size() / Math.max(1, readers);
      AtomicLong done = new AtomicLong();
      readerOffsets.add(offset);
      readerDone.add(done);
      threads.add(daemon("reader-" + r, () -> read(offset, done)));
    }
    if (writer) {
      threads.add(daemon("writer", () -> write(writePrefix)));
    }
    threads.forEach(Thread::start);
    return this;
  }

  private void read(int offset, AtomicLong done) {
    while (!stop.get()) {
      for (int k = 0; k < data.size() && !stop.get(); k++) {
        int i = (offset + k) % data.size();
        check(data.name(i), data.crc(i));
        done.incrementAndGet();
      }
    }
  }

  /**
   * GETs an object through the proxy and its 307, as a native client does, checking status and every byte. While
   * objects move, the owner may redirect once more, to the target still holding the object, and that one back:
   * at most three redirects in all.
   */
  private void check(String name, long crc) {
    reads.incrementAndGet();
    String url = Names.url(endpoint, bucket, name);
    try {
      HttpResponse<InputStream> r = get(url);
      for (int hops = 0; r.statusCode() == 307 && hops < 3; hops++) {
        r.body().close();
        url = r.headers().firstValue("location").orElseThrow();
        r = get(url);
      }
      CRC32 c = new CRC32();
      byte[] buf = new byte[64 << 10];
      try (InputStream in = r.body()) {
        for (int n; (n = in.read(buf)) > 0; ) {
          c.update(buf, 0, n);
        }
      }
      if (r.statusCode() != 200 || c.getValue() != crc) {
        fail(name + ": " + r.statusCode() + (r.statusCode() == 200 ? " wrong content" : "") + " from " + host(url));
      }
    } catch (Exception e) {
      fail(name + ": " + e + " from " + host(url));
    }
  }

  private static Http.Reply put(String url, byte[] body) throws Exception {
    return Http.send(Http.NO_FOLLOW,
        HttpRequest.newBuilder(URI.create(url)).PUT(HttpRequest.BodyPublishers.ofByteArray(body)));
  }

  private static HttpResponse<InputStream> get(String url) throws Exception {
    return Http.NO_FOLLOW.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60)).GET().build(),
        HttpResponse.BodyHandlers.ofInputStream());
  }

  private static String host(String url) {
    URI u = URI.create(url);
    return u.getHost() + ":" + u.getPort() + " at " + java.time.Instant.now();
  }

  private void writeFailed(String why) {
    failedWrites.incrementAndGet();
    if (writeFailures.size() < 20) {
      writeFailures.add(why);
    }
  }

  private void fail(String why) {
    failedReads.incrementAndGet();
    if (failures.size() < 20) {
      failures.add(why);
    }
  }

  private void write(String prefix) {
    for (int i = 0; !stop.get(); i++) {
      String name = prefix + i;
      byte[] body = Content.bytes(7_000_000L + i, 1 + (i * 7919) % (96 << 10));
      // The 307 is followed here rather than by the client, so that a failure says which node it came from.
      String url = Names.url(endpoint, bucket, name);
      try {
        Http.Reply r = put(url, body);
        if (r.status() == 307) {
          url = r.header("Location").orElseThrow();
          r = put(url, body);
        }
        if (r.status() == 200) {
          written.put(name, Dataset.crc(body));
        } else {
          writeFailed(name + ": " + r.status() + " " + r.bodyText() + " from " + host(url));
        }
      } catch (Exception e) {
        writeFailed(name + ": " + e + " from " + host(url));
      }
    }
  }

  long reads() {
    return reads.get();
  }

  /** Where each reader is now: give it to {@link #everyObjectReadSince}. */
  long[] mark() {
    return readerDone.stream().mapToLong(AtomicLong::get).toArray();
  }

  /**
   * Whether every object of the dataset has been read (and checked) since {@code mark}: the readers start half a
   * pass apart, so together they cover the dataset in about half a pass each.
   */
  boolean everyObjectReadSince(long[] mark) {
    int n = data.size();
    boolean[] read = new boolean[n];
    int covered = 0;
    for (int r = 0; r < mark.length; r++) {
      long from = mark[r];
      long to = Math.min(readerDone.get(r).get(), from + n);
      for (long j = from; j < to; j++) {
        int i = (int) ((readerOffsets.get(r) + j % n) % n);
        if (!read[i]) {
          read[i] = true;
          covered++;
        }
      }
    }
    return covered == n;
  }

  int failedReads() {
    return failedReads.get();
  }

  List<String> failures() {
    return List.copyOf(failures);
  }

  int failedWrites() {
    return failedWrites.get();
  }

  /** The first failed writes, with why. */
  List<String> writeFailures() {
    return List.copyOf(writeFailures);
  }

  /** The objects the writer wrote and were acknowledged, with their CRC32. */
  Map<String, Long> written() {
    return Map.copyOf(written);
  }

  /** Reads every acknowledged write once; those that did not read back byte-exact, with why. */
  List<String> checkWritten() {
    List<String> before = List.copyOf(failures);
    int failedBefore = failedReads.get();
    written.forEach(this::check);
    List<String> now = new ArrayList<>(failures);
    now.removeAll(before);
    if (now.isEmpty() && failedReads.get() > failedBefore) {
      now.add((failedReads.get() - failedBefore) + " failures beyond the first 20");
    }
    return now;
  }

  @Override
  public void close() throws InterruptedException {
    stop.set(true);
    for (Thread t : threads) {
      t.join(120_000);
    }
  }

  private static Thread daemon(String name, Runnable r) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }
}
