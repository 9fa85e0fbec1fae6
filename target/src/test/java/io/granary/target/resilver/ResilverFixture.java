package io.granary.target.resilver;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeRole;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketMetadata;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.common.membership.ClusterMetadata;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.MetadataFiles;
import io.granary.common.mountpath.MountpathsReport;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.multipart.MultipartStore;
import io.granary.target.multipart.UploadRelocation;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.PutOperation;
import io.granary.target.storage.PutOptions;
import io.granary.target.storage.StoredObject;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * A target's storage as {@code TargetNode} assembles it for resilver: mountpaths opened by {@link MountpathStartup}
 * from flags under a temp directory, the object store, cluster metadata naming one local bucket and this target
 * alone, the resilver, the health check and the administration. {@link #restart} closes everything (as a stop or
 * a kill leaves the disks) and opens it again with other flags.
 */
final class ResilverFixture implements AutoCloseable {
  static final String SELF = "t1";
  static final String UUID = "c0ffee00-0000-4000-8000-000000000009";
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  static final BucketProps BUCKET = new BucketProps(Bucket.local("bkt"), "b1", ChecksumType.XXHASH64, T0);

  final Path dir;
  List<Path> flags;
  MountpathStartup.Opened opened;
  ObjectStore store;
  ClusterMetadataHolder cluster;
  MultipartStore multipart;
  Resilver resilver;
  HealthChecker health;
  MountpathAdmin admin;

  /** The pool the next {@link #restart} gives the resilver's moves. */
  Supplier<ExecutorService> moves = () -> Executors.newFixedThreadPool(2);

  ResilverFixture(Path dir, String... mountpaths) throws IOException {
    this.dir = dir;
    open(mountpaths);
  }

  Path path(String mountpath) {
    return dir.resolve(mountpath).toAbsolutePath().normalize();
  }

  private void open(String... mountpaths) throws IOException {
    flags = Arrays.stream(mountpaths).map(this::path).toList();
    opened = MountpathStartup.open(flags, SELF);
    store = ObjectStore.open(SELF, opened.set(), 0);
    cluster = new ClusterMetadataHolder(SELF, new MetadataFiles(List.of(dir.resolve("cluster"))));
    ClusterMap map = ClusterMap.bootstrap(UUID, new Node("p1", NodeRole.PROXY, "http://127.0.0.1:1", NodeState.ACTIVE,
        1), T0).withNode(new Node(SELF, NodeRole.TARGET, "http://127.0.0.1:2", NodeState.ACTIVE, 1));
    if (cluster.snapshot().isEmpty()) {
      cluster.apply(new ClusterMetadata(map, BucketMetadata.empty(UUID).with(BUCKET)));
    }
    multipart = new MultipartStore(SELF, store, Clock.systemUTC());
    resilver = new Resilver(SELF, store, cluster, new UploadRelocation(multipart), moves.get());
    health = new HealthChecker(SELF, store);
    admin = new MountpathAdmin(SELF, store, cluster, resilver, health, mp -> new long[] {mp.usage().objectBytes(),
        mp.totalSpace()}, flags, opened);
    admin.start();
  }

  /** Stops everything (the disks keep what they hold) and starts again with {@code mountpaths} as flags. */
  void restart(String... mountpaths) throws IOException {
    close();
    open(mountpaths);
  }

  MountpathsReport report() {
    return admin.report();
  }

  MountpathsReport.Resilver resilverState() {
    return admin.report().resilver();
  }

  /** Whether the latest resilver ended (done or failed). */
  boolean resilverEnded() {
    String s = resilverState().state();
    return s.equals(MountpathsReport.Resilver.DONE) || s.equals(MountpathsReport.Resilver.FAILED)
        || s.equals(MountpathsReport.Resilver.IDLE);
  }

  static byte[] content(String name) {
    return ("content of " + name + " ").repeat(1 + Math.abs(name.hashCode() % 7)).getBytes(StandardCharsets.UTF_8);
  }

  ObjectMeta put(String name) throws IOException {
    return put(name, content(name));
  }

  ObjectMeta put(String name, byte[] c) throws IOException {
    PutOperation op = store.beginPut(BUCKET, name, PutOptions.nativePut(c.length, List.of()));
    ByteBuf buf = Unpooled.copiedBuffer(c);
    try {
      op.write(buf);
    } finally {
      buf.release();
    }
    return op.finish();
  }

  List<String> putMany(int n) throws IOException {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String name = "obj-" + i;
      put(name);
      names.add(name);
    }
    return names;
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

  /** The readable mountpaths that hold a record of {@code name}. */
  List<Mountpath> holders(String name) throws IOException {
    String key = ObjectStore.bucketPrefix(BUCKET) + name;
    List<Mountpath> out = new ArrayList<>();
    for (Mountpath mp : store.mountpaths()) {
      if (mp.meta().get(key) != null) {
        out.add(mp);
      }
    }
    return out;
  }

  /** The names of the bucket's objects a listing gives, in order. */
  List<String> listed() throws IOException {
    return store.list(BUCKET, "", null, null, 100_000).entries().stream().map(e -> e.name()).toList();
  }

  Mountpath mountpath(String name) {
    return store.mountpathSet().entry(path(name)).map(e -> e.mountpath()).orElse(null);
  }

  @Override
  public void close() throws IOException {
    resilver.close();
    health.close();
    store.close();
  }
}
