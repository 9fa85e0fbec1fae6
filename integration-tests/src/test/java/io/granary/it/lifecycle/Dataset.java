package io.granary.it.lifecycle;

import io.granary.it.support.Content;
import io.granary.it.support.Http;
import io.granary.it.support.Names;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.zip.CRC32;

/**
 * Objects of a local bucket for lifecycle tests: names (mostly plain, every tenth with the spaces, unicode and
 * characters URLs must escape that users have), sizes from 0 to 1 MiB (most under 64 KiB, one in fifty up to
 * 1 MiB, some empty), content regenerated from a seed, and each object's CRC32 to check what is read back.
 */
final class Dataset {
  private final List<String> names = new ArrayList<>();
  private final List<Integer> sizes = new ArrayList<>();
  private final List<Long> crcs = new ArrayList<>();
  private final long seed;
  private long bytes;

  Dataset(int count, long seed) {
    this.seed = seed;
    Random r = new Random(seed);
    for (int i = 0; i < count; i++) {
      names.add(i % 10 == 0 ? Names.random(r, i) : "d/" + (i % 97) + "/obj-" + i);
      int size = i % 89 == 0 ? 0 : i % 50 == 0 ? 1 + r.nextInt(1 << 20) : 1 + r.nextInt(64 << 10);
      sizes.add(size);
      crcs.add(crc(Content.bytes(seed * 1_000_003L + i, size)));
      bytes += size;
    }
  }

  int size() {
    return names.size();
  }

  long bytes() {
    return bytes;
  }

  String name(int i) {
    return names.get(i);
  }

  long crc(int i) {
    return crcs.get(i);
  }

  byte[] content(int i) {
    return Content.bytes(seed * 1_000_003L + i, sizes.get(i));
  }

  /**
   * Every object reads back byte-exact through {@code cluster}'s proxy, and each is on its HRW owner and mountpath
   * only: what a rebalance that ended must leave.
   */
  void assertIntact(io.granary.it.support.TestCluster cluster, String bucket) throws Exception {
    for (int i = 0; i < size(); i++) {
      Http.Reply r = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), bucket,
          name(i)))).GET());
      org.assertj.core.api.Assertions.assertThat(r.status()).as(name(i)).isEqualTo(200);
      org.assertj.core.api.Assertions.assertThat(crc(r.body())).as(name(i)).isEqualTo(crc(i));
    }
    io.granary.clustermap.bucket.Bucket b = io.granary.clustermap.bucket.Bucket.local(bucket);
    OnDisk.assertExactly(OnDisk.files(cluster, cluster.targetIds(), b),
        OnDisk.expected(cluster, cluster.map(), b, OnDisk.bucketId(cluster, bucket), names()));
  }

  List<String> names() {
    return List.copyOf(names);
  }

  /** PUTs every object through the proxy (307 to the owner), {@code parallel} at a time; fails on any non-200. */
  void upload(String endpoint, String bucket, int parallel) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(parallel);
    try {
      List<Future<?>> puts = new ArrayList<>();
      for (int i = 0; i < names.size(); i++) {
        int k = i;
        puts.add(pool.submit(() -> {
          Http.Reply r = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(endpoint, bucket,
              name(k)))).PUT(HttpRequest.BodyPublishers.ofByteArray(content(k))));
          if (r.status() != 200) {
            throw new IllegalStateException("PUT " + name(k) + " -> " + r.status() + " " + r.bodyText());
          }
          return null;
        }));
      }
      for (Future<?> f : puts) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  static long crc(byte[] data) {
    CRC32 c = new CRC32();
    c.update(data);
    return c.getValue();
  }
}
