package io.granary.target.ec;

import io.granary.clustermap.Node;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.clustermap.bucket.Protection;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.ec.ReedSolomon;
import io.granary.ec.StripeEncoder;
import io.granary.target.checksum.FileHashing;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.ObjectLocation;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.StoredObject;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Encodes one object on its owner: P replicas below {@code ec.objSizeLimit}, else D+P slices streamed through
 * {@link StripeEncoder} into work files next to the object (memory: (D+P) × cell size of direct buffers, whatever
 * the object's size), each sent zero-copy to its holder: the next D+P targets after the owner in HRW order. Then
 * the version is marked encoded here, with its holders, and older versions' slices are removed from the holders; a
 * version marked for other holders than the map names now (a target joined or left) is encoded again, and its
 * former holders drop theirs.
 *
 * <p>A worker thread runs it (it blocks on disk and network). An overwrite or delete meanwhile wins: the version
 * sent is marked only while it is still the object's current one (the overwrite's own commit queues the new one).
 */
final class Encoder {
  private static final Logger log = LoggerFactory.getLogger(Encoder.class);
  /** Targets ranked after the holders that are asked to drop the object's slices: where they were before a join. */
  static final int FORMER = 2;
  private static final long DROP_SECONDS = 30;

  /** What one call did. */
  enum Outcome { ENCODED, REPLICATED, RESENT, DONE_ALREADY, SKIPPED, TOO_FEW_TARGETS, HOLDER_OFFLINE }

  private final String nodeId;
  private final ObjectStore store;
  private final ClusterMetadataHolder cluster;
  private final Function<BucketProps, BucketProps> current;
  private final SliceStore slices;
  private final EcPeers peers;
  private final EcStats stats;
  private final MissingSlices missing;
  private final int cellSize;
  private final Object[] stripes = new Object[64];

  Encoder(String nodeId, ObjectStore store, ClusterMetadataHolder cluster, Function<BucketProps, BucketProps> current,
      SliceStore slices, EcPeers peers, EcStats stats, MissingSlices missing, int cellSize) {
    this.nodeId = nodeId;
    this.store = store;
    this.cluster = cluster;
    this.current = current;
    this.slices = slices;
    this.peers = peers;
    this.stats = stats;
    this.missing = missing;
    this.cellSize = cellSize;
    for (int i = 0; i < stripes.length; i++) {
      stripes[i] = new Object();
    }
  }

  /** Encodes the object's current version unless done already, not owned here or no longer erasure coded. */
  Outcome encode(BucketProps asked, String name) throws IOException, InterruptedException {
    // One encode of an object at a time: a walk may queue again an object a worker is encoding (the queue keeps
    // each object once only while it waits); the second then finds it marked.
    synchronized (stripes[Math.floorMod((asked.bucket().key() + "/" + name).hashCode(), stripes.length)]) {
      return encodeNow(asked, name);
    }
  }

  private Outcome encodeNow(BucketProps asked, String name) throws IOException, InterruptedException {
    MissingSlices.Missing lacking = missing.take(asked, name);
    Outcome o = encodeNow(asked, name, lacking);
    if (lacking != null && (o == Outcome.HOLDER_OFFLINE || o == Outcome.TOO_FEW_TARGETS)) {
      slices.clearMarks(asked, name); // what was missing is sent, whole, once the object can be encoded again
    }
    return o;
  }

  private Outcome encodeNow(BucketProps asked, String name, MissingSlices.Missing lacking)
      throws IOException, InterruptedException {
    BucketProps b = current.apply(asked);
    ClusterMetadataHolder.Snapshot s = cluster.snapshot().orElse(null);
    if (b == null || s == null || b.protection().ecData() == 0) {
      return Outcome.SKIPPED;
    }
    Protection p = b.protection();
    int d = p.ecData();
    int par = p.ecParity();
    long digest = PlacementKey.digest(b.bucket(), name);
    List<Node> ranked = s.placement().ranked(digest, d + par + 1);
    if (ranked.isEmpty() || !ranked.get(0).id().equals(nodeId)) {
      return Outcome.SKIPPED; // another target owns it: it encodes
    }
    if (ranked.size() < d + par + 1) {
      stats.tooFewTargets.incrementAndGet();
      log.warn("node={} bucket={} object={}: ec {}+{} needs {} targets, the map has {}: left unencoded", nodeId,
          b.bucket(), name, d, par, d + par + 1, ranked.size());
      return Outcome.TOO_FEW_TARGETS;
    }
    List<Node> holders = ranked.subList(1, ranked.size());
    for (Node h : holders) {
      if (h.state() != NodeState.ACTIVE) {
        // Its slice could not be sent: left unencoded until the target is back (which walks the bucket again)
        log.info("node={} bucket={} object={}: holder {} is {}: left unencoded until it is back", nodeId,
            b.bucket(), name, h.id(), h.state().wireName());
        return Outcome.HOLDER_OFFLINE;
      }
    }
    StoredObject obj = store.open(b, name);
    if (obj == null) {
      return Outcome.SKIPPED;
    }
    try (FileChannel ch = obj.channel()) {
      ObjectMeta meta = obj.meta();
      String version = SliceRecord.versionOf(meta);
      boolean replicas = meta.size() < p.ecObjSizeLimit();
      List<Node> to = replicas ? holders.subList(0, par) : holders;
      List<String> was = slices.encodedFor(b, name, version);
      String record = SliceRecord.encodeMeta(meta);
      long mapVersion = s.map().version();
      if (ids(to).equals(was)) {
        if (lacking == null || !lacking.version().equals(version)) {
          return Outcome.DONE_ALREADY;
        }
        // An audit found these holders without their slice: only they are sent it again; the mark stands.
        try {
          if (replicas) {
            replicate(b, name, ch, meta, version, record, to, d, par, mapVersion, lacking.holders());
          } else {
            slice(b, name, ch, meta, version, record, to, d, par, mapVersion, lacking.holders());
          }
        } catch (IOException | RuntimeException e) {
          slices.clearMarks(b, name); // encoded whole again after the retry's walk
          throw e;
        }
        stats.resent.incrementAndGet();
        return Outcome.RESENT;
      }
      if (replicas) {
        replicate(b, name, ch, meta, version, record, to, d, par, mapVersion, null);
      } else {
        slice(b, name, ch, meta, version, record, to, d, par, mapVersion, null);
      }
      stats.encodeBytes.addAndGet(meta.size());
      ObjectMeta now = store.stat(b, name);
      if (now == null || !SliceRecord.versionOf(now).equals(version)) {
        return Outcome.SKIPPED; // overwritten or deleted meanwhile: the newer version wins
      }
      slices.markEncoded(b, name, version, mapVersion, ids(to));
      dropElsewhere(s, b, name, version, to, replicas, was);
      if (was != null) {
        stats.reencoded.incrementAndGet();
        log.info("node={} bucket={} object={}: slices sent again for a placement change: {} -> {}", nodeId,
            b.bucket(), name, was, ids(to));
      }
      (replicas ? stats.replicated : stats.encoded).incrementAndGet();
      return replicas ? Outcome.REPLICATED : Outcome.ENCODED;
    }
  }

  /**
   * Whether the object's current version is encoded for the holders the map names now (false also when it has too
   * few targets: the encode says why). What a walk asks after a placement change.
   */
  boolean placed(BucketProps b, String name, ObjectMeta meta) {
    ClusterMetadataHolder.Snapshot s = cluster.snapshot().orElse(null);
    if (s == null) {
      return true;
    }
    Protection p = b.protection();
    List<Node> ranked = s.placement().ranked(PlacementKey.digest(b.bucket(), name), p.ecData() + p.ecParity() + 1);
    if (ranked.size() < p.ecData() + p.ecParity() + 1) {
      return false;
    }
    List<Node> holders = ranked.subList(1, ranked.size());
    List<Node> to = meta.size() < p.ecObjSizeLimit() ? holders.subList(0, p.ecParity()) : holders;
    return ids(to).equals(slices.encodedFor(b, name, SliceRecord.versionOf(meta)));
  }

  private static List<String> ids(List<Node> nodes) {
    return nodes.stream().map(Node::id).toList();
  }

  /**
   * After every holder committed this version: each keeps only its own slice of it (older versions go, and the
   * slice of another index that a previous placement gave it), and targets that are no holders now drop what they
   * hold of the object: those the previous mark names, and the {@value #FORMER} targets ranked right after the
   * holders, where a previous owner's holders were when a target joined or left (an object that came here by
   * rebalance has no mark here). This owner keeps no slice of its own object either. Waited for, bounded: while
   * it runs, the object counts in the queue's depth. Best effort: what a target down now keeps, the sweep removes.
   */
  private void dropElsewhere(ClusterMetadataHolder.Snapshot s, BucketProps b, String name, String version,
      List<Node> to, boolean replicas, List<String> was) throws IOException, InterruptedException {
    List<CompletableFuture<Void>> asked = new ArrayList<>();
    for (int k = 0; k < to.size(); k++) {
      asked.add(peers.removeOthers(to.get(k), b, name, version, replicas ? SliceRecord.REPLICA : k));
    }
    Set<String> keep = new HashSet<>(ids(to));
    keep.add(nodeId);
    Map<String, Node> former = new LinkedHashMap<>();
    for (Node n : s.placement().ranked(PlacementKey.digest(b.bucket(), name), to.size() + 1 + FORMER)) {
      former.put(n.id(), n);
    }
    if (was != null) {
      was.forEach(id -> Optional.ofNullable(s.map().targets().get(id)).ifPresent(n -> former.put(id, n)));
    }
    for (Node n : former.values()) {
      if (!keep.contains(n.id()) && n.state() == NodeState.ACTIVE) {
        asked.add(peers.removeUpTo(n, b, name, Long.MAX_VALUE));
      }
    }
    slices.remove(b, name, r -> true);
    try {
      CompletableFuture.allOf(asked.toArray(CompletableFuture[]::new)).get(DROP_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      log.info("node={} bucket={} object={}: not every former holder dropped its slices now (the sweep does): {}",
          nodeId, b.bucket(), name, e.toString());
    }
  }

  /** Sends a replica to each of {@code to}, or to those of them named by {@code only} when it is not null. */
  private void replicate(BucketProps b, String name, FileChannel ch, ObjectMeta meta, String version,
      String record, List<Node> to, int d, int par, long mapVersion, Set<String> only)
      throws IOException, InterruptedException {
    String sum = FileHashing.hash(ch, meta.size(), ChecksumType.XXHASH64);
    SliceRecord r = new SliceRecord(b.bucket().provider().wireName(), b.bucket().name(), b.id(), name,
        SliceRecord.REPLICA, d, par, cellSize, meta.size(), version, meta.mtime(), record, meta.size(), sum,
        mapVersion);
    for (Node n : to) {
      if (only != null && !only.contains(n.id())) {
        continue;
      }
      peers.send(n, b, name, r, ch, mapVersion);
      stats.slicesSent.incrementAndGet();
    }
  }

  /**
   * Encodes the object and sends slice k to holder k, or only to the holders {@code only} names when it is not null
   * (the other slices are computed, as parity needs, but not written).
   */
  private void slice(BucketProps b, String name, FileChannel ch, ObjectMeta meta, String version, String record,
      List<Node> holders, int d, int par, long mapVersion, Set<String> only)
      throws IOException, InterruptedException {
    ObjectLocation loc = store.locate(b, name);
    int total = d + par;
    List<Path> work = new ArrayList<>(total);
    List<FileChannel> out = new ArrayList<>(total);
    try {
      HashedChannel[] shards = new HashedChannel[total];
      java.nio.channels.WritableByteChannel[] sinks = new java.nio.channels.WritableByteChannel[total];
      for (int k = 0; k < total; k++) {
        if (only != null && !only.contains(holders.get(k).id())) {
          out.add(null);
          sinks[k] = Discard.INSTANCE;
          continue;
        }
        Path f = Path.of(store.newWorkFile(loc) + ".ec" + k);
        work.add(f);
        FileChannel c = FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
            StandardOpenOption.READ);
        out.add(c);
        shards[k] = HashedChannel.writing(c, ChecksumType.XXHASH64);
        sinks[k] = shards[k];
      }
      ch.position(0);
      long size = new StripeEncoder(ReedSolomon.of(d, par), cellSize).encode(ch, sinks);
      if (size != meta.size()) {
        throw new IOException("object file has " + size + " bytes, its record says " + meta.size());
      }
      for (int k = 0; k < total; k++) {
        if (shards[k] == null) {
          continue;
        }
        SliceRecord r = new SliceRecord(b.bucket().provider().wireName(), b.bucket().name(), b.id(), name, k, d,
            par, cellSize, meta.size(), version, meta.mtime(), record, shards[k].bytes(), shards[k].hex(),
            mapVersion);
        peers.send(holders.get(k), b, name, r, out.get(k), mapVersion);
        stats.slicesSent.incrementAndGet();
      }
    } finally {
      for (FileChannel c : out) {
        if (c != null) {
          c.close();
        }
      }
      for (Path f : work) {
        Files.deleteIfExists(f);
      }
    }
  }

  /** Where a slice that is not sent is encoded to: nowhere. */
  private static final class Discard implements java.nio.channels.WritableByteChannel {
    static final Discard INSTANCE = new Discard();

    @Override
    public int write(java.nio.ByteBuffer src) {
      int n = src.remaining();
      src.position(src.limit());
      return n;
    }

    @Override
    public boolean isOpen() {
      return true;
    }

    @Override
    public void close() {
    }
  }
}
