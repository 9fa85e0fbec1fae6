package io.granary.target.mirror;

import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.clustermap.bucket.Protection;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.MountpathSet;
import io.granary.target.storage.MountpathState;
import io.granary.target.storage.ObjectLocation;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.PutOperation;
import io.granary.target.storage.PutOptions;
import io.granary.target.storage.StoredObject;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * A real object store over several temp-dir mountpaths and a bucket whose mirror.copies a test sets (mirroring and
 * validation tests).
 */
public final class MirrorFixture implements AutoCloseable {
  public final Path dir;
  public final ObjectStore store;
  public volatile BucketProps bucket;

  public MirrorFixture(Path dir, int mountpaths, int copies) throws IOException {
    this.dir = dir;
    List<Mountpath> mps = new ArrayList<>();
    for (int i = 1; i <= mountpaths; i++) {
      mps.add(Mountpath.open(dir.resolve("mp" + i)));
    }
    this.store = ObjectStore.open("t1", mps, 0);
    setCopies(copies);
  }

  public void setCopies(int copies) {
    bucket = new BucketProps(Bucket.local("bkt"), "b1d", ChecksumType.XXHASH64, Instant.EPOCH)
        .withProtection(new Protection(copies, 0, 0, Protection.DEFAULT_EC_OBJ_SIZE_LIMIT, false));
  }

  /** The bucket's props now, as the cluster metadata would give them. */
  public BucketProps current(BucketProps asked) {
    return asked.id().equals(bucket.id()) ? bucket : null;
  }

  public static byte[] content(int size, long seed) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }

  public ObjectMeta put(String name, byte[] content) throws IOException {
    PutOperation op = store.beginPut(bucket, name, PutOptions.nativePut(content.length, List.of()));
    ByteBuf buf = Unpooled.copiedBuffer(content);
    try {
      op.write(buf);
    } finally {
      buf.release();
    }
    return op.finish();
  }

  public byte[] read(String name) throws IOException {
    StoredObject o = store.open(bucket, name);
    if (o == null) {
      return null;
    }
    try (FileChannel ch = o.channel()) {
      ByteBuffer b = ByteBuffer.allocate((int) o.meta().size());
      while (b.hasRemaining() && ch.read(b, b.position()) > 0) {
        // read all
      }
      return Arrays.copyOf(b.array(), b.position());
    }
  }

  public ObjectLocation locate(String name) {
    return store.locate(bucket, name);
  }

  public Mountpath mountpath(String name) {
    Path p = dir.resolve(name).toAbsolutePath().normalize();
    return store.mountpathSet().entry(p).map(MountpathSet.Entry::mountpath).orElseThrow();
  }

  public void setState(Mountpath mp, MountpathState state) throws IOException {
    store.updateMountpaths(s -> s.with(s.entry(mp.root()).orElseThrow().withState(state, "test")));
  }

  /** The mountpaths holding a record and an intact file of the object (main copy first when there is one). */
  public List<Mountpath> holders(String name) throws IOException {
    List<Mountpath> out = new ArrayList<>();
    ObjectLocation loc = locate(name);
    for (Mountpath mp : store.mountpathSet().served()) {
      ObjectMeta m = mp.meta().get(loc.key());
      if (m != null && Files.isRegularFile(loc.on(mp).file()) && Files.size(loc.on(mp).file()) == m.size()) {
        if (mp == loc.mountpath()) {
          out.add(0, mp);
        } else {
          out.add(mp);
        }
      }
    }
    return out;
  }

  /** The record of the object on {@code mp}, or null. */
  public ObjectMeta metaOn(Mountpath mp, String name) throws IOException {
    return mp.meta().get(locate(name).key());
  }

  @Override
  public void close() throws IOException {
    store.close();
  }
}
