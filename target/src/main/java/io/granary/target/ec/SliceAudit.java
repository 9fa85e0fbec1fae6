package io.granary.target.ec;

import io.granary.clustermap.Node;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.control.ControlClient;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.target.meta.ObjectMeta;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The owner's check that the holders its "encoded" marks name still hold their slices: a holder that lost a disk
 * (a mountpath failed, was disabled or detached, or came back empty after a restart) cannot know which slices were
 * on it, only the owners do. One pass per bucket walk: for each object this target owns whose current version is
 * marked encoded, each holder is asked, {@value #BATCH} slices per request ({@code POST /v1/ec/held}), whether it
 * holds its slice whole; an object with a slice missing is queued with the holders that lack theirs
 * ({@link MissingSlices}), and its encode sends those slices only, its mark unchanged. A holder that is not active or
 * does not answer is skipped: its return starts another audit.
 */
final class SliceAudit {
  private static final Logger log = LoggerFactory.getLogger(SliceAudit.class);
  /** Slices asked about per request: about 100 bytes of JSON and one directory read each on the holder. */
  static final int BATCH = 500;
  private static final long ANSWER_SECONDS = 60;

  private final String nodeId;
  private final ClusterMetadataHolder cluster;
  private final SliceStore slices;
  private final EcPeers peers;
  private final EcStats stats;
  private final MissingSlices lacking;
  private final BiPredicate<BucketProps, String> owns;

  /** @param owns whether this target owns an object under the current map */
  SliceAudit(String nodeId, ClusterMetadataHolder cluster, SliceStore slices, EcPeers peers, EcStats stats,
      MissingSlices missing, BiPredicate<BucketProps, String> owns) {
    this.lacking = missing;
    this.nodeId = nodeId;
    this.owns = owns;
    this.cluster = cluster;
    this.slices = slices;
    this.peers = peers;
    this.stats = stats;
  }

  /**
   * Starts an audit of bucket {@code b} that asks the holders {@code holders} accepts (target ids); {@code reencode}
   * queues an object with slices missing (false: the queue closed).
   */
  Pass begin(BucketProps b, java.util.function.Predicate<String> holders, Requeue reencode) {
    return new Pass(b, holders, reencode);
  }

  /** Queues an object of the audited bucket to have its missing slices sent; false when the queue closed. */
  @FunctionalInterface
  interface Requeue {
    boolean put(String name) throws InterruptedException;
  }

  /** One bucket's audit: objects are added as the walk finds them, holders asked as their batches fill. */
  final class Pass {
    private final BucketProps bucket;
    private final Requeue reencode;
    private final java.util.function.Predicate<String> holders;
    private final Map<String, List<SliceRoutes.HeldSlice>> batches = new HashMap<>();
    private final Set<String> unreachable = new HashSet<>();
    private final Set<String> requeued = new HashSet<>();
    private long asked;
    private long missing;

    private Pass(BucketProps bucket, java.util.function.Predicate<String> holders, Requeue reencode) {
      this.bucket = bucket;
      this.holders = holders;
      this.reencode = reencode;
    }

    /** An object found by the walk: when this target owns it, its current version's slices are asked about. */
    void add(String name, ObjectMeta meta) throws InterruptedException {
      if (!owns.test(bucket, name)) {
        return;
      }
      String version = SliceRecord.versionOf(meta);
      List<String> marked = slices.encodedFor(bucket, name, version);
      if (marked == null || marked.isEmpty()) {
        return; // not encoded (the walk queues it) or an unreadable mark (encoded again anyway)
      }
      boolean replicas = meta.size() < bucket.protection().ecObjSizeLimit();
      for (int k = 0; k < marked.size(); k++) {
        String holder = marked.get(k);
        if (unreachable.contains(holder) || !holders.test(holder)) {
          continue;
        }
        List<SliceRoutes.HeldSlice> batch = batches.computeIfAbsent(holder, h -> new ArrayList<>());
        batch.add(new SliceRoutes.HeldSlice(name, version, replicas ? SliceRecord.REPLICA : k));
        if (batch.size() >= BATCH) {
          ask(holder, batches.remove(holder));
        }
      }
    }

    /** Asks what is left in the batches; how many slices were found missing. */
    long finish() throws InterruptedException {
      for (String holder : new ArrayList<>(batches.keySet())) {
        ask(holder, batches.remove(holder));
      }
      if (missing > 0 || !unreachable.isEmpty()) {
        log.info("node={} bucket={} slice audit: asked={} missing={} objects sent again={}{}", nodeId,
            bucket.bucket(), asked, missing, requeued.size(),
            unreachable.isEmpty() ? "" : " holders not asked (not active or not answering): " + unreachable);
      }
      return missing;
    }

    private void ask(String holder, List<SliceRoutes.HeldSlice> batch) throws InterruptedException {
      Node node = cluster.snapshot().map(s -> s.map().targets().get(holder)).orElse(null);
      if (node == null || node.state() != NodeState.ACTIVE) {
        unreachable.add(holder); // down or gone: asked again when it is back (the map change starts an audit)
        return;
      }
      List<Integer> absent;
      try {
        absent = peers.missing(node, bucket, batch).get(ANSWER_SECONDS, TimeUnit.SECONDS);
      } catch (ExecutionException | TimeoutException e) {
        unreachable.add(holder);
        log.warn("node={} bucket={} slice audit: holder {} did not answer: {}", nodeId, bucket.bucket(), holder,
            e instanceof ExecutionException ? ControlClient.cause(e).toString() : "no answer in "
                + ANSWER_SECONDS + " s");
        return;
      }
      asked += batch.size();
      stats.slicesAudited.addAndGet(batch.size());
      for (int i : absent) {
        if (i < 0 || i >= batch.size()) {
          continue; // not one asked about
        }
        SliceRoutes.HeldSlice s = batch.get(i);
        missing++;
        stats.slicesMissing.incrementAndGet();
        requeue(s, holder);
      }
    }

    private void requeue(SliceRoutes.HeldSlice s, String holder) throws InterruptedException {
      log.debug("node={} bucket={} object={}: slice {} of version {} missing on holder {}: sent again", nodeId,
          bucket.bucket(), s.name(), s.index(), s.version(), holder);
      lacking.add(bucket, s.name(), s.version(), holder);
      requeued.add(s.name());
      if (!reencode.put(s.name())) {
        throw new InterruptedException("the encode queue closed");
      }
    }
  }
}
