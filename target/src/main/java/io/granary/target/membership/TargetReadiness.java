package io.granary.target.membership;

import io.granary.clustermap.Node;
import io.granary.clustermap.NodeState;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.Readiness;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;

/**
 * A target is ready when all of these hold:
 *
 * <ol>
 *   <li>it has received cluster metadata from the primary since it started (a registration answer or a push), not
 *       only the copy on its disks, which may list it active from an earlier run;
 *   <li>it is {@code active} in the cluster map it holds. The primary makes a joining target active only once it
 *       has registered holding the current bucket metadata, and every later version reaches it by metasync in
 *       order, so an active target knows every bucket clients can be routed to it for;
 *   <li>it has at least one available mountpath (in placement: it can store an object).
 * </ol>
 */
public final class TargetReadiness implements Readiness {
  private final ClusterMetadataHolder holder;
  private final IntSupplier availableMountpaths;

  /** @param availableMountpaths how many mountpaths are in placement now (cheap: read from a snapshot) */
  public TargetReadiness(ClusterMetadataHolder holder, IntSupplier availableMountpaths) {
    this.holder = holder;
    this.availableMountpaths = availableMountpaths;
  }

  @Override
  public List<String> blockers() {
    List<String> why = new ArrayList<>();
    var snap = holder.snapshot();
    if (!holder.receivedSinceStart()) {
      why.add("has not received cluster metadata from the primary since it started");
    }
    if (snap.isEmpty()) {
      why.add("holds no cluster map");
    } else {
      long v = snap.get().map().version();
      NodeState state = snap.get().map().node(holder.nodeId()).map(Node::state).orElse(null);
      if (state == null) {
        why.add("is not in the cluster map it holds (v" + v + ")");
      } else if (state == NodeState.JOINING) {
        why.add("is joining in cluster map v" + v + ": active once the primary has seen it hold the current metadata");
      } else if (state != NodeState.ACTIVE) {
        why.add("is " + state.wireName() + " in cluster map v" + v);
      }
    }
    if (availableMountpaths.getAsInt() == 0) {
      why.add("has no available mountpath");
    }
    return why;
  }
}
