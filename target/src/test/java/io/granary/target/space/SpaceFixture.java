package io.granary.target.space;

import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.clustermap.bucket.Provider;
import io.granary.target.CacheConfig;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.PutOperation;
import io.granary.target.storage.PutOptions;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/** A real store on one or two temp-dir mountpaths, with helpers to put and read objects. */
final class SpaceFixture implements AutoCloseable {
  static final BucketProps REMOTE =
      new BucketProps(new Bucket(Provider.AWS, "cache"), "r1", ChecksumType.XXHASH64, Instant.EPOCH, null, null);
  static final BucketProps LOCAL = new BucketProps(Bucket.local("keep"), "l1", ChecksumType.XXHASH64, Instant.EPOCH);

  final List<Path> roots;
  ObjectStore store;

  SpaceFixture(Path... roots) throws IOException {
    this.roots = List.of(roots);
    open();
  }

  void open() throws IOException {
    Mountpath[] mps = new Mountpath[roots.size()];
    for (int i = 0; i < mps.length; i++) {
      mps[i] = Mountpath.open(roots.get(i));
    }
    store = ObjectStore.open("t1", List.of(mps), 0);
  }

  void reopen() throws IOException {
    store.close();
    open();
  }

  Mountpath mp() {
    return store.mountpaths().get(0);
  }

  /** A config with a per-mountpath capacity limit and the given watermarks. */
  static CacheConfig config(long capacity, int high, int low, int full, Duration dontEvict) {
    return CacheConfig.DEFAULTS.withSpace(capacity, high, low, full, dontEvict, Duration.ofHours(1));
  }

  ObjectMeta put(BucketProps b, String name, int size) throws IOException {
    return put(b, name, filled(size, (byte) name.hashCode()));
  }

  ObjectMeta put(BucketProps b, String name, byte[] body) throws IOException {
    PutOperation op = store.beginPut(b, name, PutOptions.nativePut(body.length, List.of()));
    op.write(Unpooled.wrappedBuffer(body));
    return op.finish();
  }

  /** Reads the object through the store (recording an access); its content, or null when absent. */
  byte[] read(BucketProps b, String name) throws IOException {
    var obj = store.open(b, name);
    if (obj == null) {
      return null;
    }
    try (var ch = obj.channel()) {
      ByteBuffer buf = ByteBuffer.allocate((int) obj.meta().size());
      while (buf.hasRemaining() && ch.read(buf) >= 0) {
        // reading all
      }
      return buf.array();
    }
  }

  boolean exists(BucketProps b, String name) throws IOException {
    return store.stat(b, name) != null;
  }

  long workFiles() throws IOException {
    long n = 0;
    for (Mountpath mp : store.mountpaths()) {
      try (Stream<Path> s = Files.list(mp.workDir())) {
        n += s.count();
      }
    }
    return n;
  }

  static byte[] filled(int size, byte b) {
    byte[] a = new byte[size];
    Arrays.fill(a, b);
    return a;
  }

  @Override
  public void close() throws IOException {
    store.close();
  }
}
