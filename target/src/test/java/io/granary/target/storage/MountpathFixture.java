package io.granary.target.storage;

import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.target.meta.ObjectMeta;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;

/** An object store over real mountpaths whose set the test changes, and helpers to put, read and plant copies. */
final class MountpathFixture implements AutoCloseable {
  static final BucketProps BUCKET = new BucketProps(Bucket.local("bkt"), "b1d", ChecksumType.XXHASH64, Instant.EPOCH);

  final Path dir;
  ObjectStore store;

  MountpathFixture(Path dir, String... mountpaths) throws IOException {
    this.dir = dir;
    open(mountpaths);
  }

  private void open(String... mountpaths) throws IOException {
    List<Mountpath> mps = new java.util.ArrayList<>();
    for (String m : mountpaths) {
      mps.add(Mountpath.open(dir.resolve(m)));
    }
    this.store = ObjectStore.open("t1", mps, 0);
  }

  /** Closes the store, as a crash leaves the disks, and opens it again over {@code mountpaths}, all available. */
  void reopen(String... mountpaths) throws IOException {
    store.close();
    open(mountpaths);
  }

  Mountpath mountpath(String name) {
    Path p = dir.resolve(name).toAbsolutePath().normalize();
    return store.mountpathSet().entry(p).map(MountpathSet.Entry::mountpath).orElseThrow();
  }

  /** Opens and adds {@code name} as an available mountpath. */
  Mountpath attach(String name) throws IOException {
    Mountpath mp = Mountpath.open(dir.resolve(name));
    store.updateMountpaths(s -> s.with(new MountpathSet.Entry(mp.root(), MountpathState.AVAILABLE, mp, null)));
    return mp;
  }

  void setState(String name, MountpathState state) throws IOException {
    Path p = dir.resolve(name).toAbsolutePath().normalize();
    store.updateMountpaths(s -> s.with(s.entry(p).orElseThrow().withState(state, "test")));
  }

  static byte[] data(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  ObjectMeta put(String name, byte[] content) throws IOException {
    PutOperation op = store.beginPut(BUCKET, name, PutOptions.nativePut(content.length, List.of()));
    ByteBuf buf = Unpooled.copiedBuffer(content);
    try {
      op.write(buf);
    } finally {
      buf.release();
    }
    return op.finish();
  }

  byte[] read(String name) throws IOException {
    StoredObject o = store.open(BUCKET, name);
    if (o == null) {
      return null;
    }
    try (FileChannel ch = o.channel()) {
      ByteBuffer b = ByteBuffer.allocate((int) ch.size());
      while (b.hasRemaining() && ch.read(b, b.position()) > 0) {
        // read all
      }
      return Arrays.copyOf(b.array(), b.position());
    }
  }

  /** Where the object's copy is on {@code mp} (whether or not there is one). */
  ObjectLocation on(String name, Mountpath mp) {
    return store.locate(BUCKET, name).on(mp);
  }

  /** Whether {@code mp} holds a copy: metadata or file. */
  boolean holds(Mountpath mp, String name) throws IOException {
    ObjectLocation loc = on(name, mp);
    return mp.meta().get(loc.key()) != null || Files.exists(loc.file());
  }

  /**
   * Puts a copy of {@code content} as {@code meta} on {@code mp} directly, as a crash between a move's commit and
   * its source's removal leaves one, or an older disk that comes back.
   */
  void plant(Mountpath mp, String name, byte[] content, ObjectMeta meta) throws IOException {
    ObjectLocation loc = on(name, mp);
    Files.createDirectories(loc.file().getParent());
    Files.write(loc.file(), content);
    mp.meta().publish(loc.key(), meta);
  }

  /** {@code meta} with another mtime and content checksum label, for a distinguishable older or newer copy. */
  static ObjectMeta at(ObjectMeta meta, long mtime, String etag) {
    return new ObjectMeta(meta.size(), meta.checksumType(), meta.checksum(), mtime, etag, meta.contentType(),
        meta.userMeta());
  }

  @Override
  public void close() throws IOException {
    store.close();
  }
}
