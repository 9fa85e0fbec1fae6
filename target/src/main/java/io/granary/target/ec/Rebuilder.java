package io.granary.target.ec;

import io.granary.clustermap.Node;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.ec.ReedSolomon;
import io.granary.ec.StripeDecoder;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.ObjectLocation;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.StoredObject;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds an object from its slices or a replica: asks the first D+P+3 targets in HRW order (this one included)
 * for the object's slice records, picks the newest version that has D distinct slices (or a replica), streams D
 * slices through {@link StripeDecoder} into a work file (memory: (D + rebuilt) × cell size), checks every slice's
 * checksum and the object's, and then either commits it as the main copy (on the owner: {@link #restore}; the GETs
 * waiting for it stream the work file as it is written, see {@link RestoringCopy}) or hands it out unlinked for one
 * read (elsewhere, while the owner is offline: {@link #degraded}).
 *
 * <p>Worker threads only (it blocks on network and disk).
 */
final class Rebuilder {
  private static final Logger log = LoggerFactory.getLogger(Rebuilder.class);
  /** Targets asked beyond D+P+1: holders chosen under a map with a target or two fewer rank after them. */
  private static final int EXTRA_ASKED = 2;
  private static final long ASK_SECONDS = 10;

  /** What a rebuild found. */
  enum Kind { REBUILT, NONE, NOT_ENOUGH }

  /**
   * @param object the rebuilt object, open (degraded reads only; the caller closes it)
   * @param message why not, for {@link Kind#NOT_ENOUGH}
   */
  record Result(Kind kind, String message, StoredObject object) {
  }

  /** A slice held somewhere: on {@code node}, or here ({@code node} null, {@code file} set). */
  record Source(Node node, SliceRecord record, Path file) {
  }

  private final String nodeId;
  private final ObjectStore store;
  private final ClusterMetadataHolder cluster;
  private final SliceStore slices;
  private final EcPeers peers;
  private final EcStats stats;

  Rebuilder(String nodeId, ObjectStore store, ClusterMetadataHolder cluster, SliceStore slices, EcPeers peers,
      EcStats stats) {
    this.nodeId = nodeId;
    this.store = store;
    this.cluster = cluster;
    this.slices = slices;
    this.peers = peers;
    this.stats = stats;
  }

  /**
   * On the owner: rebuilds the object and commits it as its main copy (fsynced). GETs that asked meanwhile stream
   * it from {@code copy} as it is written; the others serve the committed copy.
   */
  Result restore(BucketProps b, String name, RestoringCopy copy) throws IOException, InterruptedException {
    try {
      return restoreInto(b, name, copy);
    } catch (IOException | InterruptedException | RuntimeException e) {
      copy.fail(e);
      throw e;
    } finally {
      copy.notStreamed(); // no effect once opened or failed
      copy.release();
    }
  }

  private Result restoreInto(BucketProps b, String name, RestoringCopy copy) throws IOException,
      InterruptedException {
    Chosen c = choose(b, name);
    if (c.kind() != Kind.REBUILT) {
      return new Result(c.kind(), c.message(), null);
    }
    ObjectLocation loc = store.locate(b, name);
    Rebuilt rebuilt = rebuildAvoidingBadSlices(b, name, c, loc, copy);
    c = rebuilt.chosen();
    Path work = rebuilt.work();
    try {
      ObjectMeta now = store.stat(b, name);
      if (now != null && now.mtime() > c.meta().mtime()) {
        Files.deleteIfExists(work); // a newer version was written meanwhile: it wins
        copy.verified(); // readers that began before it have a whole verified copy of the version they asked
        return new Result(Kind.REBUILT, null, null);
      }
      slices.clearMarks(b, name); // its commit queues it for encoding: the lost slices are sent again
      store.commitWorkFile(loc, work, c.meta());
      copy.verified(); // last byte out after the commit: a GET that completed leaves the main copy restored
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(work);
      throw e;
    }
    stats.rebuilds.incrementAndGet();
    log.info("node={} bucket={} object={}: main copy rebuilt from {} ({} bytes, version {})", nodeId, b.bucket(),
        name, c.describe(), c.meta().size(), c.version());
    return new Result(Kind.REBUILT, null, null);
  }

  /**
   * Elsewhere than on the owner, for the GETs that stream it from {@code copy} as it is decoded: the object rebuilt
   * into a work file that is unlinked once verified (the readers' channel keeps it until the last one leaves).
   * Nothing is committed: the owner's return brings the main copy back. The result carries no object.
   */
  Result degraded(BucketProps b, String name, RestoringCopy copy) throws IOException, InterruptedException {
    try {
      Chosen c = choose(b, name);
      if (c.kind() != Kind.REBUILT) {
        return new Result(c.kind(), c.message(), null);
      }
      Rebuilt rebuilt = rebuildAvoidingBadSlices(b, name, c, store.locate(b, name), copy);
      Files.deleteIfExists(rebuilt.work());
      copy.verified();
      stats.rebuilds.incrementAndGet();
      log.info("node={} bucket={} object={}: rebuilt for reads while its owner is offline, from {}", nodeId,
          b.bucket(), name, rebuilt.chosen().describe());
      return new Result(Kind.REBUILT, null, null);
    } catch (IOException | InterruptedException | RuntimeException e) {
      copy.fail(e);
      throw e;
    } finally {
      copy.notStreamed(); // no effect once opened or failed
      copy.release();
    }
  }

  /** Elsewhere than on the owner: the rebuilt object, in a work file already unlinked (gone once closed). */
  Result degraded(BucketProps b, String name) throws IOException, InterruptedException {
    Chosen c = choose(b, name);
    if (c.kind() != Kind.REBUILT) {
      return new Result(c.kind(), c.message(), null);
    }
    Rebuilt rebuilt = rebuildAvoidingBadSlices(b, name, c, store.locate(b, name), null);
    c = rebuilt.chosen();
    Path work = rebuilt.work();
    FileChannel ch;
    try {
      ch = FileChannel.open(work, StandardOpenOption.READ);
    } finally {
      Files.deleteIfExists(work);
    }
    stats.rebuilds.incrementAndGet();
    log.info("node={} bucket={} object={}: rebuilt for a read while its owner is offline, from {}", nodeId,
        b.bucket(), name, c.describe());
    return new Result(Kind.REBUILT, null, new StoredObject(c.meta(), ch));
  }

  /** The version to rebuild and where its slices are. */
  private record Chosen(Kind kind, String message, String version, ObjectMeta meta, List<Source> sources) {
    /** The same version from its other sources, or null when they are too few. */
    Chosen without(List<Source> bad) {
      List<Source> rest = new ArrayList<>(sources);
      rest.removeAll(bad);
      boolean replicas = !rest.isEmpty() && rest.get(0).record().isReplica();
      long distinct = rest.stream().map(x -> x.record().index()).distinct().count();
      if (rest.isEmpty() || (!replicas && distinct < rest.get(0).record().data())) {
        return null;
      }
      return new Chosen(kind, message, version, meta, rest);
    }

    String describe() {
      return sources.stream().map(s -> (s.node() == null ? "here" : s.node().id()) + ":"
          + (s.record().isReplica() ? "replica" : Integer.toString(s.record().index()))).toList().toString();
    }
  }

  private Chosen choose(BucketProps b, String name) throws IOException, InterruptedException {
    ClusterMetadataHolder.Snapshot s = cluster.require();
    int d = b.protection().ecData();
    int p = b.protection().ecParity();
    List<Node> asked = s.placement().ranked(PlacementKey.digest(b.bucket(), name), d + p + 1 + EXTRA_ASKED);
    Map<Node, CompletableFuture<List<SliceRecord>>> answers = new LinkedHashMap<>();
    List<Source> all = new ArrayList<>();
    for (SliceStore.Held h : slices.held(b, name)) {
      all.add(new Source(null, h.record(), h.file()));
    }
    int unreachable = 0;
    for (Node n : asked) {
      if (n.id().equals(nodeId)) {
        continue;
      }
      if (n.state() == NodeState.OFFLINE || n.state() == NodeState.SUSPENDED) {
        unreachable++;
        continue;
      }
      answers.put(n, peers.records(n, b, name));
    }
    for (var e : answers.entrySet()) {
      try {
        for (SliceRecord r : e.getValue().get(ASK_SECONDS, TimeUnit.SECONDS)) {
          all.add(new Source(e.getKey(), r, null));
        }
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException ex) {
        unreachable++;
        log.warn("node={} bucket={} object={}: target {} did not list its slices: {}", nodeId, b.bucket(), name,
            e.getKey().id(), ex.toString());
      }
    }
    if (all.isEmpty() && unreachable == 0) {
      return new Chosen(Kind.NONE, null, null, null, List.of());
    }
    if (all.isEmpty()) {
      return new Chosen(Kind.NOT_ENOUGH, "object '" + name + "' cannot be rebuilt: no slice of it is reachable ("
          + unreachable + " of the targets asked cannot answer)", null, null, List.of());
    }
    Map<String, List<Source>> byVersion = new HashMap<>();
    for (Source src : all) {
      if (src.record().bucketId().equals(b.id())) {
        byVersion.computeIfAbsent(src.record().version(), v -> new ArrayList<>()).add(src);
      }
    }
    List<List<Source>> versions = new ArrayList<>(byVersion.values());
    versions.sort(Comparator.comparingLong((List<Source> v) -> v.get(0).record().mtime()).reversed());
    for (List<Source> v : versions) {
      SliceRecord first = v.get(0).record();
      List<Source> usable = usable(v, first.data());
      if (!usable.isEmpty()) {
        return new Chosen(Kind.REBUILT, null, first.version(), first.objectMeta(), usable);
      }
    }
    SliceRecord newest = versions.get(0).get(0).record();
    long distinct = versions.get(0).stream().map(x -> x.record().index()).distinct().count();
    return new Chosen(Kind.NOT_ENOUGH, "object '" + name + "' cannot be rebuilt: " + distinct + " of its "
        + (newest.data() + newest.parity()) + " slices reachable, " + newest.data() + " needed (" + unreachable
        + " of the targets asked cannot answer)", null, null, List.of());
  }

  /** A replica, or one source per slice index (data slices first) when there are D of them; else empty. */
  static List<Source> usable(List<Source> version, int d) {
    for (Source s : version) {
      if (s.record().isReplica()) {
        List<Source> out = new ArrayList<>();
        version.stream().filter(x -> x.record().isReplica()).forEach(out::add); // the others are fallbacks
        return out;
      }
    }
    Map<Integer, Source> byIndex = new java.util.TreeMap<>();
    for (Source s : version) {
      byIndex.merge(s.record().index(), s, (a, b) -> a.node() == null ? a : b); // a local one first
    }
    return byIndex.size() >= d ? new ArrayList<>(byIndex.values()) : List.of();
  }

  /** A verified work file, and the sources it was rebuilt from. */
  private record Rebuilt(Path work, Chosen chosen) {
  }

  /**
   * {@link #rebuild}; when slices (or a replica) fail their checksums and enough others are left, once more without
   * them, not streamed (the readers of the first attempt were cut off). The bad slices are replaced when the
   * restored copy is encoded again.
   */
  private Rebuilt rebuildAvoidingBadSlices(BucketProps b, String name, Chosen c, ObjectLocation loc,
      RestoringCopy copy) throws IOException, InterruptedException {
    try {
      return new Rebuilt(rebuild(b, name, c, loc, copy), c);
    } catch (BadSlices e) {
      if (copy != null) {
        copy.fail(e);
      }
      Chosen rest = c.without(e.bad());
      if (rest == null) {
        throw e;
      }
      log.warn("node={} bucket={} object={}: {}; rebuilding from {}", nodeId, b.bucket(), name, e.getMessage(),
          rest.describe());
      return new Rebuilt(rebuild(b, name, rest, loc, null), rest);
    }
  }

  /**
   * Writes the chosen version into a new fsynced work file on the object's mountpath, verified.
   *
   * @param copy readers streaming the work file as it is written, told of each write; null: none
   */
  private Path rebuild(BucketProps b, String name, Chosen c, ObjectLocation loc, RestoringCopy copy)
      throws IOException, InterruptedException {
    Path work = store.newWorkFile(loc);
    boolean ok = false;
    try (FileChannel out = FileChannel.open(work, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      if (copy != null) {
        copy.opened(FileChannel.open(work, StandardOpenOption.READ), c.meta());
      }
      HashedChannel object = HashedChannel.writing(copy == null ? out : new Progress(out, copy),
          c.meta().checksumType());
      if (c.sources().get(0).record().isReplica()) {
        copyReplica(b, name, c, object);
      } else {
        decode(b, name, c, object);
      }
      if (object.bytes() != c.meta().size()) {
        throw new IOException("rebuilt " + object.bytes() + " bytes, the object has " + c.meta().size());
      }
      // A multipart object's checksum covers its parts' checksums, not its bytes: its slices' checksums vouch.
      if (c.meta().partSizes().isEmpty()) {
        String sum = object.hex();
        if (!sum.equals(c.meta().checksum())) {
          throw new IOException("rebuilt object hashes to " + sum + ", its record says " + c.meta().checksum());
        }
      }
      out.force(true);
      ok = true;
      return work;
    } finally {
      if (!ok) {
        Files.deleteIfExists(work); // the read that asked counts the failure
      }
    }
  }

  private void copyReplica(BucketProps b, String name, Chosen c, HashedChannel object) throws IOException,
      InterruptedException {
    IOException last = null;
    for (Source s : c.sources()) {
      try (Closeable in = open(b, name, s); HashedChannel r = HashedChannel.reading(channel(in),
          ChecksumType.XXHASH64)) {
        ByteBuffer buf = ByteBuffer.allocateDirect(256 << 10);
        while (r.read(buf) >= 0) {
          buf.flip();
          object.write(buf);
          buf.clear();
        }
        String wrong = mismatch(s.record(), r);
        if (wrong != null) {
          throw new BadSlices(List.of(s), wrong);
        }
        return;
      } catch (BadSlices e) {
        throw e;
      } catch (IOException e) {
        last = e;
        if (object.bytes() > 0) {
          throw e; // bytes of a bad copy went out already: this rebuild fails (the next read retries)
        }
        log.warn("node={} bucket={} object={}: replica on {} unusable: {}", nodeId, b.bucket(), name,
            s.node() == null ? "here" : s.node().id(), e.toString());
      }
    }
    throw last;
  }

  private void decode(BucketProps b, String name, Chosen c, HashedChannel object) throws IOException,
      InterruptedException {
    SliceRecord first = c.sources().get(0).record();
    int d = first.data();
    int total = d + first.parity();
    HashedChannel[] shards = new HashedChannel[total];
    Source[] used = new Source[total];
    List<Closeable> open = new ArrayList<>();
    try {
      int opened = 0;
      for (Source s : c.sources()) {
        if (opened == d) {
          break;
        }
        try {
          Closeable in = open(b, name, s);
          open.add(in);
          shards[s.record().index()] = HashedChannel.reading(channel(in), ChecksumType.XXHASH64);
          used[s.record().index()] = s;
          opened++;
        } catch (IOException e) {
          log.warn("node={} bucket={} object={}: slice {} on {} unreadable: {}", nodeId, b.bucket(), name,
              s.record().index(), s.node() == null ? "here" : s.node().id(), e.toString());
        }
      }
      if (opened < d) {
        throw new IOException("only " + opened + " of the " + d + " slices needed could be read");
      }
      new StripeDecoder(ReedSolomon.of(d, first.parity()), first.cellSize()).decode(shards, first.objectSize(),
          object);
      List<Source> bad = new ArrayList<>();
      String why = null;
      for (int k = 0; k < total; k++) {
        String wrong = shards[k] == null ? null : mismatch(used[k].record(), shards[k]);
        if (wrong != null) {
          bad.add(used[k]);
          why = wrong;
        }
      }
      if (!bad.isEmpty()) {
        throw new BadSlices(bad, bad.size() + " slice(s) failed their checksums, the last: " + why);
      }
    } finally {
      for (Closeable in : open) {
        in.close();
      }
    }
  }

  /** Null when a slice read whole has its record's size and checksum, else what is wrong (reads the hash once). */
  private static String mismatch(SliceRecord r, HashedChannel read) {
    String sum = read.hex();
    if (read.bytes() == r.sliceSize() && sum.equals(r.sliceChecksum())) {
      return null;
    }
    return "slice " + r.stem() + " read " + read.bytes() + " bytes hashing to " + sum + ", its record says "
        + r.sliceSize() + " bytes, " + r.sliceChecksum();
  }

  /** Slices (or a replica) read whole that did not match their records: the rebuild may go on without them. */
  static final class BadSlices extends IOException {
    private final transient List<Source> bad;

    BadSlices(List<Source> bad, String message) {
      super(message);
      this.bad = List.copyOf(bad);
    }

    List<Source> bad() {
      return bad;
    }
  }

  private Closeable open(BucketProps b, String name, Source s) throws IOException, InterruptedException {
    if (s.node() == null) {
      return FileChannel.open(s.file(), StandardOpenOption.READ);
    }
    return peers.open(s.node(), b, name, s.record().version(), s.record().index());
  }

  private static ReadableByteChannel channel(Closeable in) {
    return in instanceof ReadableByteChannel ch ? ch : Channels.newChannel((InputStream) in);
  }

  /** Tells the streaming readers how much of the work file is written. */
  private static final class Progress implements WritableByteChannel {
    private final FileChannel out;
    private final RestoringCopy copy;
    private long written;

    Progress(FileChannel out, RestoringCopy copy) {
      this.out = out;
      this.copy = copy;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      int n = out.write(src);
      written += n;
      copy.written(written);
      return n;
    }

    @Override
    public boolean isOpen() {
      return out.isOpen();
    }

    @Override
    public void close() throws IOException {
      out.close();
    }
  }
}
