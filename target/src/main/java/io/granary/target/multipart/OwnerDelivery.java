package io.granary.target.multipart;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.WriteCondition;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Where a completed upload's object goes when another target owns its key. An upload stays on the target that
 * created it; if the key changed owner meanwhile (a target joined, or this one is leaving placement), completing it
 * here would leave the object where GETs do not look once the map settles. So the assembled object is sent to the
 * owner, which commits it (under the completion's condition) before the client is answered.
 */
@FunctionalInterface
public interface OwnerDelivery {
  /** The key's owner when it is another target than this one under the map held now; null: commit here. */
  Owner awayFrom(BucketProps bucket, String name);

  /** The target that owns a key this target does not own. Blocking: call from the disk pool. */
  interface Owner {
    /** The owner's node id, for logs. */
    String node();

    /**
     * Checks {@code condition} against the owner's copy now, before parts are assembled (or a remote bucket written
     * through); throws the condition's answer (412; 404 for If-Match on a missing object).
     */
    void check(WriteCondition condition) throws IOException;

    /**
     * Sends {@code file}, whose content {@code meta} describes, to the owner, which commits it only over an older
     * copy and only if {@code condition} holds at its commit; returns once the owner has committed it (or holds a
     * newer version). Throws the condition's answer, or 503 when the owner cannot take it now: nothing changed, and
     * the completion can be retried.
     */
    void deliver(Path file, ObjectMeta meta, WriteCondition condition) throws IOException;
  }
}
