package io.granary.common.membership;

import io.granary.clustermap.Node;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.Bucket;
import io.granary.common.error.ServiceUnavailableException;
import java.util.HexFormat;

/**
 * Which target a request on a multipart upload goes to. An upload stays on the target that created it (its parts
 * are files there) until it is completed or aborted, whatever the map does meanwhile, so its id names that target:
 * {@code 32 hex digits + "." + node id}. Requests that name an upload go to that target while it is in the map,
 * even after its key changed owner (a target joined) or it left placement (maintenance, decommission: it keeps
 * serving its uploads until they end). Ids without a node (made before ids named one) go to the key's owner, as
 * does an id whose target left the map (its uploads ended before it could leave: 404 NoSuchUpload there).
 */
public final class UploadHolder {
  private static final int RANDOM_HEX = 32;

  private UploadHolder() {}

  /** A new upload id held by {@code nodeId}, from 16 random bytes. */
  public static String newId(String nodeId, byte[] random) {
    if (random.length != RANDOM_HEX / 2) {
      throw new IllegalArgumentException("an upload id takes " + RANDOM_HEX / 2 + " random bytes");
    }
    return HexFormat.of().formatHex(random) + "." + Node.requireValidId(nodeId);
  }

  /** The target an upload id names, or null when it names none (an older id, or one not made by Granary). */
  public static String holderOf(String uploadId) {
    if (uploadId == null || uploadId.length() <= RANDOM_HEX + 1 || uploadId.charAt(RANDOM_HEX) != '.') {
      return null;
    }
    for (int i = 0; i < RANDOM_HEX; i++) {
      if (Character.digit(uploadId.charAt(i), 16) < 0) {
        return null;
      }
    }
    String node = uploadId.substring(RANDOM_HEX + 1);
    try {
      return Node.requireValidId(node);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /**
   * The target for a request on upload {@code uploadId} of {@code name}: the one holding the upload while it is in
   * {@code s}'s map, else the key's owner ({@link ObjectOwner#require}). 503 with Retry-After when that target
   * cannot answer now (offline, suspended): the upload is there, never looked for elsewhere.
   */
  public static Node require(ClusterMetadataHolder.Snapshot s, Bucket bucket, String name, String uploadId) {
    String id = holderOf(uploadId);
    Node holder = id == null ? null : s.map().targets().get(id);
    if (holder == null) {
      return ObjectOwner.require(s, bucket, name);
    }
    if (holder.state() == NodeState.OFFLINE || holder.state() == NodeState.SUSPENDED) {
      throw new ServiceUnavailableException(ServiceUnavailableException.TARGET_OFFLINE, "target " + holder.id()
          + " that holds upload '" + uploadId + "' is " + holder.state().wireName() + "; retry when it is back",
          ObjectOwner.RETRY_SECONDS);
    }
    return holder;
  }
}
