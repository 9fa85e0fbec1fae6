package io.granary.target.meta;

import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.clustermap.bucket.Provider;
import io.granary.target.membership.NodeIdFile;
import io.granary.target.resilver.MountpathStartup;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.ObjectLocation;
import io.granary.target.storage.ObjectStore;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDB;

/**
 * Fills a stopped target's object metadata with records, offline, for {@code bench/fill.sh} ("cost as a target
 * fills"): records written through the real store, each on the mountpath HRW picks for its name
 * ({@link ObjectStore#locate}) by the same {@link MetaStore#publish} a PUT's commit ends with, so the databases end up
 * as a target that took that many PUTs would have them. No object files are written: the records are never read by
 * content (the benchmark GETs only the hot objects it PUT through the cluster).
 *
 * <p>Names interleave with the hot names in key order: hot name {@code H} (the i-th of the names file) gets
 * {@code FILL/HOT} records (the first {@code FILL % HOT} hot names one more) named {@code H~J}, J zero-padded to the
 * width of the largest count minus one. {@code ~} sorts after every character of the loader's names, so
 * {@code H < H~0 < ... < H~max < next hot name}: the hot keys spread over the whole key space.
 *
 * <p>Each record copies the hot object's own record (size, checksum type, ETag, content type, user metadata and
 * headers as its PUT wrote them) with a random checksum value and the current time; so every hot name must be found
 * in the store first, which also checks the bucket id and the mountpaths given. After the writes, the memtables are
 * flushed and the helper waits for RocksDB's compactions to finish, so the target starts on settled databases (as
 * after a long fill) rather than compacting through the measurement.
 *
 * <p>Usage: {@code MetaFill MOUNTPATH[,MOUNTPATH...] BUCKET PROVIDER BUCKET_ID NAMES_FILE FILL [THREADS]}. Progress
 * on stderr every million records; at the end one JSON line on stdout:
 * {@code {"records","seconds","records_per_s","suffix_width","per_mountpath":{PATH:N},"threads","node"}}.
 */
public final class MetaFill {
  private static final long PROGRESS_EVERY = 1_000_000;

  private MetaFill() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 6 || args.length > 7) {
      System.err.println("usage: MetaFill MOUNTPATH[,MOUNTPATH...] BUCKET PROVIDER BUCKET_ID NAMES_FILE FILL [THREADS]");
      System.exit(2);
    }
    List<Path> paths = Arrays.stream(args[0].split(",")).filter(s -> !s.isBlank()).map(Path::of).toList();
    Bucket bucket = new Bucket(Provider.parse(args[2]), args[1]);
    String bucketId = args[3];
    List<String> hot = new ArrayList<>();
    for (String line : Files.readAllLines(Path.of(args[4]), StandardCharsets.UTF_8)) {
      if (!line.isEmpty() && !line.startsWith("#")) {
        hot.add(line);
      }
    }
    long fill = Long.parseLong(args[5]);
    if (hot.isEmpty() || fill < 0) {
      fail("need at least one hot name and FILL >= 0 (got " + hot.size() + " names, FILL " + fill + ")");
    }
    for (String h : hot) {
      if (h.indexOf('~') >= 0) {
        fail("hot name '" + h + "' contains '~': the fill names would not interleave as planned");
      }
    }

    MountpathStartup.Opened opened = MountpathStartup.open(paths, null);
    List<Mountpath> mps = opened.set().readable();
    String node = NodeIdFile.resolve(mps, null);
    int threads = args.length == 7 ? Integer.parseInt(args[6]) : Math.max(1, opened.set().available().size());
    try (ObjectStore store = ObjectStore.open(node, opened.set(), 0)) {
      // the store's own bucket props need only the identity and id for locate(); the checksum is the hot records'
      BucketProps props = new BucketProps(bucket, bucketId, ChecksumType.XXHASH64,
          Instant.EPOCH);
      List<ObjectMeta> templates = new ArrayList<>(hot.size());
      for (String h : hot) {
        ObjectMeta m = store.stat(props, h);
        if (m == null) {
          fail("hot object '" + h + "' is not in " + bucket + " (id " + bucketId + ") on " + paths
              + ": wrong bucket id, mountpaths, or the target did not keep it");
        }
        templates.add(m);
      }
      long perHot = fill / hot.size();
      long extra = fill % hot.size();
      long maxCount = perHot + (extra > 0 ? 1 : 0);
      int width = Long.toString(Math.max(0, maxCount - 1)).length();
      System.err.printf("MetaFill: node %s, %d mountpath(s), %s id %s: %d records over %d hot names (%d each%s), "
              + "%d thread(s)%n", node, store.mountpaths().size(), bucket, bucketId, fill, hot.size(), perHot,
          extra > 0 ? ", the first " + extra + " one more" : "", threads);

      long mtime = System.currentTimeMillis();
      AtomicLong done = new AtomicLong();
      Map<String, LongAdder> perMountpath = new ConcurrentHashMap<>();
      for (Mountpath mp : store.mountpaths()) {
        perMountpath.put(mp.id(), new LongAdder());
      }
      long started = System.nanoTime();
      List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int first = t;
        Thread w = new Thread(() -> {
          SplittableRandom rnd = new SplittableRandom(first * 0x9E3779B97F4A7C15L + mtime);
          StringBuilder sb = new StringBuilder(256);
          try {
            for (int i = first; i < hot.size(); i += threads) {
              String h = hot.get(i);
              ObjectMeta tm = templates.get(i);
              long count = perHot + (i < extra ? 1 : 0);
              for (long j = 0; j < count; j++) {
                sb.setLength(0);
                sb.append(h).append('~');
                String js = Long.toString(j);
                for (int p = js.length(); p < width; p++) {
                  sb.append('0');
                }
                sb.append(js);
                ObjectLocation loc = store.locate(props, sb.toString());
                ObjectMeta meta = new ObjectMeta(tm.size(), tm.checksumType(), hex16(rnd.nextLong()), mtime,
                    tm.etag(), tm.contentType(), tm.userMeta(), tm.headers(), tm.partSizes(), tm.remote(), tm.acl());
                loc.mountpath().meta().publish(loc.key(), meta);
                perMountpath.get(loc.mountpath().id()).increment();
                long n = done.incrementAndGet();
                if (n % PROGRESS_EVERY == 0) {
                  double s = (System.nanoTime() - started) / 1e9;
                  System.err.printf("MetaFill: %,d of %,d records in %.1fs (%,.0f/s)%n", n, fill, s, n / s);
                }
              }
            }
          } catch (Throwable e) {
            errors.add(e);
          }
        }, "fill-" + t);
        w.start();
        workers.add(w);
      }
      for (Thread w : workers) {
        w.join();
      }
      if (!errors.isEmpty()) {
        errors.get(0).printStackTrace();
        fail("a writer failed after " + done.get() + " records: " + errors.get(0));
      }
      double writeSecs = (System.nanoTime() - started) / 1e9;
      System.err.printf("MetaFill: wrote %,d records in %.1fs (%,.0f/s); flushing and waiting for compactions%n",
          done.get(), writeSecs, done.get() / writeSecs);
      long settleStarted = System.nanoTime();
      for (Mountpath mp : store.mountpaths()) {
        settle(mp);
      }
      double settleSecs = (System.nanoTime() - settleStarted) / 1e9;
      System.err.printf("MetaFill: settled in %.1fs%n", settleSecs);
      double secs = (System.nanoTime() - started) / 1e9;
      Map<String, Long> counts = new LinkedHashMap<>();
      perMountpath.forEach((k, v) -> counts.put(k, v.sum()));
      StringBuilder json = new StringBuilder();
      json.append("{\"records\":").append(done.get())
          .append(",\"seconds\":").append(round(secs))
          .append(",\"write_seconds\":").append(round(writeSecs))
          .append(",\"settle_seconds\":").append(round(settleSecs))
          .append(",\"records_per_s\":").append(Math.round(done.get() / secs))
          .append(",\"suffix_width\":").append(width)
          .append(",\"threads\":").append(threads)
          .append(",\"node\":\"").append(node).append('"')
          .append(",\"per_mountpath\":{");
      int k = 0;
      for (Map.Entry<String, Long> e : counts.entrySet()) {
        json.append(k++ == 0 ? "" : ",").append('"').append(e.getKey().replace("\\", "\\\\").replace("\"", "\\\""))
            .append("\":").append(e.getValue());
      }
      json.append("}}");
      System.out.println(json);
    }
  }

  /**
   * Flushes the store's memtables and waits until RocksDB runs and owes no compaction, then logs its level sizes.
   * The store exposes neither, so its handle is taken by reflection (this is a benchmark's helper, not a store API).
   */
  private static void settle(Mountpath mp) throws Exception {
    MetaStore meta = mp.meta();
    RocksDB db = (RocksDB) field(meta, "db");
    ColumnFamilyHandle objects = (ColumnFamilyHandle) field(meta, "objects");
    try (FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
      db.flush(fo, objects);
    }
    long deadline = System.nanoTime() + 3_600L * 1_000_000_000L;
    while (true) {
      long pending = db.getLongProperty(objects, "rocksdb.compaction-pending");
      long running = db.getLongProperty("rocksdb.num-running-compactions");
      long flushes = db.getLongProperty("rocksdb.num-running-flushes");
      if (pending == 0 && running == 0 && flushes == 0) {
        break;
      }
      if (System.nanoTime() > deadline) {
        fail("RocksDB at " + mp + " still compacting after an hour");
      }
      Thread.sleep(200);
    }
    System.err.printf("MetaFill: %s: about %,d keys in \"objects\", %,d bytes of SST files; levels:%n%s", mp.id(),
        db.getLongProperty(objects, "rocksdb.estimate-num-keys"),
        db.getLongProperty(objects, "rocksdb.total-sst-files-size"),
        db.getProperty(objects, "rocksdb.levelstats"));
  }

  private static Object field(Object o, String name) throws ReflectiveOperationException {
    Field f = o.getClass().getDeclaredField(name);
    f.setAccessible(true);
    return f.get(o);
  }

  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private static String hex16(long v) {
    char[] c = new char[16];
    for (int i = 15; i >= 0; i--) {
      c[i] = HEX[(int) (v & 0xf)];
      v >>>= 4;
    }
    return new String(c);
  }

  private static double round(double s) {
    return Math.round(s * 100) / 100.0;
  }

  private static void fail(String message) {
    System.err.println("MetaFill: ERROR: " + message);
    System.exit(1);
  }
}
