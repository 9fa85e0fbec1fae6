package io.granary.target.ec;

import io.granary.clustermap.Node;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.common.control.ControlClient;
import io.granary.common.membership.ClusterMetadataHolder;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A holder's check of the slices it keeps for one bucket, with each scrub of the bucket: every slice re-hashed
 * against its record, one file at a time; one that rotted (or whose file is gone or short) is removed, and the owners
 * of those objects are asked to audit ({@link SliceAudit}), which finds the slice missing and sends it again. The
 * owner's own audit may have run already when this one ends: hence the request.
 */
final class SliceScrub {
  private static final Logger log = LoggerFactory.getLogger(SliceScrub.class);

  private final String nodeId;
  private final ClusterMetadataHolder cluster;
  private final SliceStore slices;
  private final EcPeers peers;
  private final EcStats stats;

  SliceScrub(String nodeId, ClusterMetadataHolder cluster, SliceStore slices, EcPeers peers, EcStats stats) {
    this.nodeId = nodeId;
    this.cluster = cluster;
    this.slices = slices;
    this.peers = peers;
    this.stats = stats;
  }

  /**
   * Checks every slice of bucket {@code b} held here; asks the owners of objects with one removed for an audit (this
   * target's own audit of the bucket follows on the same thread).
   */
  void run(BucketProps b) throws InterruptedException {
    Map<String, Node> owners = new LinkedHashMap<>();
    long objects = 0;
    long corrupt = 0;
    for (String name : slices.objectsHeld(b)) {
      if (Thread.currentThread().isInterrupted()) {
        throw new InterruptedException();
      }
      List<SliceRecord> removed;
      try {
        removed = slices.removeCorrupt(b, name);
      } catch (IOException e) {
        log.warn("node={} bucket={} object={}: checking its slices failed: {}", nodeId, b.bucket(), name,
            e.toString());
        continue;
      }
      objects++;
      if (removed.isEmpty()) {
        continue;
      }
      corrupt += removed.size();
      stats.slicesCorrupt.addAndGet(removed.size());
      for (SliceRecord r : removed) {
        log.warn("node={} bucket={} object={}: slice {} of version {} did not match its record: removed, its owner "
            + "sends it again", nodeId, b.bucket(), name, r.index(), r.version());
      }
      cluster.snapshot().flatMap(s -> s.placement().owner(PlacementKey.digest(b.bucket(), name)))
          .ifPresent(o -> owners.put(o.id(), o));
    }
    if (corrupt > 0) {
      log.info("node={} bucket={} slice scrub done: objects={} slices removed={} owners asked to audit={}", nodeId,
          b.bucket(), objects, corrupt, owners.keySet());
    }
    owners.remove(nodeId);
    for (Node o : owners.values()) {
      if (o.state() != NodeState.ACTIVE) {
        continue; // it audits when it is back
      }
      peers.askAudit(o, nodeId).exceptionally(e -> {
        log.warn("node={} bucket={}: owner {} not asked to audit (its next audit sends the slices again): {}",
            nodeId, b.bucket(), o.id(), ControlClient.cause(e).toString());
        return null;
      });
    }
  }
}
