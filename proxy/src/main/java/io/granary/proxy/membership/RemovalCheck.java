package io.granary.proxy.membership;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeRole;
import io.granary.clustermap.NodeState;
import io.granary.common.error.ConflictException;
import io.granary.common.error.NodeNotFoundException;

/**
 * Whether a node may be removed from the map by force, without moving its data: only a target the map does not
 * hold alive (offline, suspended, or leaving placement while its objects could not move off), and only when asked
 * with force. A live target is decommissioned instead, so its objects move first. Checked before the node is
 * probed and again under the authority's lock, against the map the change applies to.
 */
final class RemovalCheck {
  /** The 409 code of a removal refused because the node is alive, or was asked without force. */
  static final String NODE_ALIVE = "NodeAlive";
  static final String FORCE_REQUIRED = "ForceRequired";

  private RemovalCheck() {}

  /** The target {@code id} of {@code map}; 404 when unknown, 409 when it may not be removed by force. */
  static Node require(ClusterMap map, String id, boolean force) {
    Node n = map.node(id).orElseThrow(() -> new NodeNotFoundException(id));
    if (n.role() == NodeRole.PROXY) {
      throw new ConflictException(ConflictException.INVALID_STATE, id.equals(map.primary())
          ? "node " + id + " is the primary proxy; it cannot be removed"
          : "node " + id + " is a proxy, which holds no data: decommission it (granary cluster set-state " + id
              + " decommissioned), it leaves the map at once");
    }
    if (n.state() == NodeState.ACTIVE || n.state() == NodeState.JOINING) {
      throw new ConflictException(NODE_ALIVE, "target " + id + " is " + n.state().wireName()
          + " (it answers health checks): decommission it so its objects move first (granary cluster set-state "
          + id + " decommissioned); removal by force is for a target whose process and disks are gone for good");
    }
    if (!force) {
      throw new ConflictException(FORCE_REQUIRED, "removing target " + id + " (" + n.state().wireName()
          + ") without moving its data loses the objects of local buckets only it held; if its disks are gone for "
          + "good, ask again with force (granary cluster rm " + id + " --force, or ?force=true)");
    }
    return n;
  }

  /** 409: the target answered the probe just made, so it is alive whatever the map says. */
  static ConflictException answered(Node n) {
    return new ConflictException(NODE_ALIVE, "target " + n.id() + " answers at " + n.url() + " although the map "
        + "says " + n.state().wireName() + ": it is alive; wait until it is active again, then decommission it if "
        + "it is to leave");
  }
}
