package io.granary.proxy.membership;

import io.granary.clustermap.Node;
import io.granary.clustermap.NodeState;
import io.granary.common.api.ApiPaths;
import io.granary.common.control.ControlClient;
import io.granary.common.control.JsonBody;
import io.granary.common.error.ConflictException;
import io.granary.common.membership.ClusterMetadata;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pushes cluster metadata from the primary to every other node (metasync). Per node there is at most one push in
 * flight and it always carries the newest metadata, so versions arrive in order; a failed push is retried with
 * backoff for as long as the node is in the map and not decommissioned. {@link #awaitAcked} lets a change wait
 * until every active node has it (bucket create returns only once targets know the bucket).
 *
 * <p>Each version is serialized once, in {@link #push}, and every node is sent the same bytes: at 1,000 nodes the
 * metadata is about 100 KB, and serializing it per node held the caller (and so the authority's lock) for most of a
 * second per push (docs/cluster-map.md, "How the push scales").
 *
 * <p>Under Lease election a node that answers {@code StaleEpoch} follows a newer primary: this pusher's proxy was
 * deposed, so it stops pushing to that node and tells {@code onStaleEpoch}. {@link #close()} ends a term's pushes.
 */
public final class MetadataPusher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MetadataPusher.class);
  private static final long MAX_BACKOFF_MS = 5000;

  private final String selfId;
  private final ControlClient client;
  private final ScheduledExecutorService scheduler;
  private final Map<String, NodeSync> nodes = new ConcurrentHashMap<>();
  private final Runnable onStaleEpoch;
  private volatile Outgoing latest;
  private volatile boolean closed;

  public MetadataPusher(String selfId, ControlClient client, ScheduledExecutorService scheduler) {
    this(selfId, client, scheduler, () -> { });
  }

  /** @param onStaleEpoch called when a node refuses a push as older than its primary's epoch */
  public MetadataPusher(String selfId, ControlClient client, ScheduledExecutorService scheduler,
      Runnable onStaleEpoch) {
    this.selfId = selfId;
    this.client = client;
    this.scheduler = scheduler;
    this.onStaleEpoch = onStaleEpoch;
  }

  /** Stops pushing: nothing more is sent, retries end. */
  @Override
  public void close() {
    closed = true;
    nodes.clear();
  }

  /** The newest metadata and its JSON, serialized once for every node. */
  private record Outgoing(ClusterMetadata md, JsonBody json) {
  }

  /** Per-node delivery state; guarded by its own monitor. */
  private final class NodeSync {
    final String id;
    String url;
    ClusterMetadata acked;     // newest metadata this node confirmed
    boolean inFlight;          // a push is on the wire or waiting for its retry
    long backoffMs = 250;
    int failures;

    NodeSync(String id) {
      this.id = id;
    }
  }

  /** Delivers {@code md} (and anything newer later) to every node in its map except this one. */
  public void push(ClusterMetadata md) {
    if (closed) {
      return;
    }
    Outgoing current = latest;
    if (current == null || current.md() != md) { // the same metadata again (a node re-joined) is not serialized again
      latest = new Outgoing(md, JsonBody.of(md));
    }
    for (Node n : md.map().proxies().values()) {
      consider(n);
    }
    for (Node n : md.map().targets().values()) {
      consider(n);
    }
    nodes.keySet().removeIf(id -> md.map().node(id).isEmpty());
  }

  private void consider(Node n) {
    if (n.id().equals(selfId)) {
      nodes.remove(n.id());
      return;
    }
    NodeSync s = nodes.computeIfAbsent(n.id(), NodeSync::new);
    synchronized (s) {
      s.url = n.url();
      if (!s.inFlight) {
        s.inFlight = true;
        send(s);
      }
    }
  }

  private void send(NodeSync s) {
    Outgoing out = latest;
    ClusterMetadata md = out.md();
    String url;
    synchronized (s) {
      url = s.url;
    }
    client.sendSerialized("PUT", url + ApiPaths.METASYNC, out.json(), Void.class).whenComplete((ok, err) -> {
      boolean again;
      synchronized (s) {
        if (err == null) {
          s.acked = md;
          s.failures = 0;
          s.backoffMs = 250;
          again = latest != out && nodes.get(s.id) == s;
          s.inFlight = again;
        } else if (staleEpoch(err)) {
          nodes.remove(s.id, s);
          again = false;
          s.inFlight = false;
        } else {
          again = nodes.get(s.id) == s && !closed;
          s.inFlight = again;
          if (s.failures++ % 10 == 0) {
            log.warn("node={} metasync of map v{} to {} failed ({} attempts): {}", selfId, md.map().version(), s.id,
                s.failures, ControlClient.cause(err).toString());
          }
        }
      }
      synchronized (this) {
        notifyAll();
      }
      if (err != null && staleEpoch(err)) {
        log.warn("node={} {} follows a newer primary and refused map v{} of epoch {}: this proxy was deposed",
            selfId, s.id, md.map().version(), md.map().epoch());
        onStaleEpoch.run();
        return;
      }
      if (again && !closed) {
        if (err == null) {
          send(s);
        } else {
          long delay;
          synchronized (s) {
            delay = s.backoffMs;
            s.backoffMs = Math.min(MAX_BACKOFF_MS, s.backoffMs * 2);
          }
          scheduler.schedule(() -> send(s), delay, TimeUnit.MILLISECONDS);
        }
      }
    });
  }

  private static boolean staleEpoch(Throwable err) {
    return ControlClient.cause(err) instanceof ControlClient.RemoteCallException rce
        && ConflictException.STALE_EPOCH.equals(rce.error().code());
  }

  /**
   * Waits until every active node of {@code md}'s map (other than this one) has acknowledged metadata at least
   * as new as {@code md}.
   *
   * @return true if all did within {@code timeout}
   */
  public boolean awaitAcked(ClusterMetadata md, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (this) {
      while (!allAcked(md)) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
      return true;
    }
  }

  private boolean allAcked(ClusterMetadata md) {
    for (NodeSync s : nodes.values()) {
      Node n = md.map().node(s.id).orElse(null);
      if (n == null || n.state() != NodeState.ACTIVE) {
        continue;
      }
      ClusterMetadata a;
      synchronized (s) {
        a = s.acked;
      }
      if (a == null || a.map().version() < md.map().version() || a.buckets().version() < md.buckets().version()) {
        return false;
      }
    }
    return true;
  }
}
