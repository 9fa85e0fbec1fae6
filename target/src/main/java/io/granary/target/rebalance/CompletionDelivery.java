package io.granary.target.rebalance;

import io.granary.clustermap.Node;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.common.control.ControlClient;
import io.granary.common.error.ObjectNotFoundException;
import io.granary.common.error.PreconditionFailedException;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.ObjectOwner;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.multipart.OwnerDelivery;
import io.granary.target.storage.StoredObject;
import io.granary.target.storage.WriteCondition;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ExecutionException;

/**
 * Sends the object of a multipart upload completed on this target to the key's owner, when that is another target
 * ({@link OwnerDelivery}): with the rebalance's transport, zero-copy from the assembled file, uncapped (a client
 * waits), committed by the owner's newer-wins rule and the completion's condition.
 *
 * <p>Threads: blocks its caller (the disk pool, completing the upload).
 */
public final class CompletionDelivery implements OwnerDelivery {
  private final String self;
  private final ClusterMetadataHolder cluster;
  private final ObjectSender sender;
  private final ControlClient client;

  CompletionDelivery(String self, ClusterMetadataHolder cluster, ObjectSender sender, ControlClient client) {
    this.self = self;
    this.cluster = cluster;
    this.sender = sender;
    this.client = client;
  }

  @Override
  public Owner awayFrom(BucketProps bucket, String name) {
    ClusterMetadataHolder.Snapshot s = cluster.snapshot().orElse(null);
    if (s == null) {
      return null;
    }
    Node owner = s.placement().owner(PlacementKey.digest(bucket.bucket(), name)).orElse(null);
    if (owner == null || owner.id().equals(self)) {
      return null;
    }
    return new Remote(bucket, name, ObjectOwner.require(s, bucket.bucket(), name), s.map().version());
  }

  /** The owner of one key, as the map named it when the completion began. */
  private final class Remote implements Owner {
    private final BucketProps bucket;
    private final String name;
    private final Node owner;
    private final long mapVersion;

    Remote(BucketProps bucket, String name, Node owner, long mapVersion) {
      this.bucket = bucket;
      this.name = name;
      this.owner = owner;
      this.mapVersion = mapVersion;
    }

    @Override
    public String node() {
      return owner.id();
    }

    @Override
    public void check(WriteCondition condition) throws IOException {
      String url = owner.url() + ObjectTransport.path(ObjectTransport.OBJECTS, bucket, name);
      String etag;
      try {
        etag = client.get(url, ObjectTransport.Current.class).get().etag();
      } catch (ExecutionException e) {
        Throwable cause = ControlClient.cause(e);
        if (!(cause instanceof ControlClient.RemoteCallException rce && rce.status() == 404)) {
          throw unavailable("could not be asked for", cause);
        }
        etag = null;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted asking " + owner.id());
      }
      condition.checkEtag(etag, bucket.bucket().toString(), name);
    }

    @Override
    public void deliver(Path file, ObjectMeta meta, WriteCondition condition) throws IOException {
      try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
        // A receipt from a target that no longer owns the key is fine too: it hands the object on as any misplaced
        // write, and its owner finds it there meanwhile (get-from-neighbor).
        sender.send(bucket, name, new StoredObject(meta, ch), 0, owner, BandwidthCap.NONE, mapVersion, true,
            condition);
      } catch (TransferException e) {
        if (e.status() == 412) {
          throw new PreconditionFailedException(e.getMessage());
        }
        if (e.status() == 404 && condition.ifMatch() != null) {
          throw new ObjectNotFoundException(bucket.bucket().toString(), name);
        }
        if (e.retryable()) {
          throw unavailable("could not take", e);
        }
        throw new IOException("target " + owner.id() + " refused the completed object: " + e.getMessage(), e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted sending to " + owner.id());
      }
    }

    private ServiceUnavailableException unavailable(String what, Throwable cause) {
      return new ServiceUnavailableException(ServiceUnavailableException.TARGET_OFFLINE, "target " + owner.id()
          + " that owns '" + name + "' " + what + " the completed upload now (" + cause.getMessage()
          + "); the upload is unchanged, retry the completion", ObjectOwner.RETRY_SECONDS, cause);
    }
  }
}
