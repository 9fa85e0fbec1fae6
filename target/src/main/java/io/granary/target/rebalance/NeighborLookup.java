package io.granary.target.rebalance;

import io.granary.clustermap.Node;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.common.api.GranaryHeaders;
import io.granary.common.control.ControlClient;
import io.granary.common.http.HttpExchange;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.target.storage.ObjectStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Get-from-neighbor's keeping half (the reading half is {@link NeighborRelay}): while a rebalance has not settled, an
 * owner that misses an object asks the other targets, in HRW order (so the previous owner first), to push it here
 * now; the first that holds it sends it (zero-copy, verified, committed here as any moved copy) and drops its own, so
 * the object has moved for good. Concurrent lookups of one object share one search. Deletes made while objects move
 * are sent to every other target too.
 *
 * <p>Threads: everything completes on the control client's threads; nothing blocks.
 */
public final class NeighborLookup {
  private static final Logger log = LoggerFactory.getLogger(NeighborLookup.class);

  /** Where a looked-up object is now. */
  public enum Found {
    /** On this target: a neighbor pushed it, or it was here already. */
    HERE,
    /** No target holds it. */
    ABSENT,
    /** No target that answered holds it, but some could not answer (offline, suspended, unreachable). */
    UNKNOWN,
    /** A target holds it, is pushing it here, and it is large: read it from that target meanwhile. */
    RELAY
  }

  /** What a lookup found, and for {@link Found#RELAY} the target to read from. */
  public record Lookup(Found found, Node holder) {
    static Lookup of(Found found) {
      return new Lookup(found, null);
    }
  }

  private final String self;
  private final ClusterMetadataHolder cluster;
  private final ControlClient client;
  private final ObjectStore store;
  private final Map<String, CompletableFuture<Lookup>> inFlight = new ConcurrentHashMap<>();
  private final MapCatchUp catchUp;

  /** @param client a client whose timeout covers sending a large object between two targets */
  public NeighborLookup(String self, ClusterMetadataHolder cluster, ControlClient client, ObjectStore store) {
    this.self = self;
    this.cluster = cluster;
    this.client = client;
    this.store = store;
    this.catchUp = new MapCatchUp(self, cluster);
  }

  /**
   * Completes once this target holds at least the map version {@code ex} was routed by (see {@link MapCatchUp}).
   */
  public CompletableFuture<Void> mapOf(HttpExchange ex) {
    return catchUp.mapOf(ex);
  }

  /**
   * Sends one request through the lookup's client now, so its first real use (a client waiting on a target that just
   * joined) does not also pay for starting the HTTP client.
   */
  public void warmUp(String url) {
    client.get(url + "/v1/health", java.util.Map.class).exceptionally(err -> null);
  }

  /** Node {@code id} in the map this target holds, if it is there. */
  Optional<Node> node(String id) {
    return cluster.snapshot().flatMap(s -> s.map().node(id));
  }

  /** The version of the cluster map this target holds (0: none yet). */
  long mapVersion() {
    return cluster.snapshot().map(s -> s.map().version()).orElse(0L);
  }

  /** Whether objects may still be on other targets than their owners (a rebalance has not finished). */
  public boolean unsettled() {
    return cluster.snapshot().map(s -> !s.map().settled()).orElse(false);
  }

  /** Brings the object here from whichever target holds it. */
  public CompletableFuture<Lookup> fetch(BucketProps bucket, String name) {
    return fetch(bucket, name, -1);
  }

  /**
   * Brings the object here from whichever target holds it; one of at least {@code relayAbove} bytes (when not
   * negative) is not waited for: the holder pushes it in the background and the lookup answers {@link Found#RELAY}
   * with the holder at once.
   */
  public CompletableFuture<Lookup> fetch(BucketProps bucket, String name, long relayAbove) {
    String key = store.locate(bucket, name).key() + (relayAbove < 0 ? "" : "#relay");
    CompletableFuture<Lookup> mine = new CompletableFuture<>();
    CompletableFuture<Lookup> running = inFlight.putIfAbsent(key, mine);
    if (running != null) {
      return running;
    }
    List<Node> holders = others(bucket, name);
    ask(bucket, name, holders, 0, relayAbove, new AtomicBoolean(), mine);
    mine.whenComplete((f, err) -> inFlight.remove(key, mine));
    return mine;
  }

  private void ask(BucketProps bucket, String name, List<Node> holders, int i, long relayAbove,
      AtomicBoolean unanswered, CompletableFuture<Lookup> out) {
    if (i == holders.size()) {
      out.complete(Lookup.of(unanswered.get() ? Found.UNKNOWN : Found.ABSENT));
      return;
    }
    Node n = holders.get(i);
    if (!n.state().serving()) {
      unanswered.set(true);
      ask(bucket, name, holders, i + 1, relayAbove, unanswered, out);
      return;
    }
    String url = n.url() + ObjectTransport.path(ObjectTransport.PUSH, bucket, name) + "&" + ObjectTransport.TO + "="
        + self + (relayAbove < 0 ? "" : "&" + ObjectTransport.RELAY_ABOVE + "=" + relayAbove)
        + "&" + GranaryHeaders.MAP_VERSION_PARAM + "=" + mapVersion(); // the holder pushes under this map or newer
    client.send("POST", url, null, ObjectTransport.Answer.class).whenComplete((a, err) -> {
      if (err == null) {
        boolean relay = a != null && ObjectTransport.RELAY.equals(a.outcome());
        log.debug("node={} bucket={} object={} {} neighbor {} ({})", self, bucket.bucket(), name,
            relay ? "to be relayed from" : "fetched from", n.id(), a == null ? "?" : a.outcome());
        out.complete(relay ? new Lookup(Found.RELAY, n) : Lookup.of(Found.HERE));
        return;
      }
      Throwable cause = ControlClient.cause(err);
      if (!(cause instanceof ControlClient.RemoteCallException rce && rce.status() == 404)) {
        log.warn("node={} bucket={} object={} neighbor {} could not be asked: {}", self, bucket.bucket(), name,
            n.id(), cause.toString());
        unanswered.set(true);
      }
      ask(bucket, name, holders, i + 1, relayAbove, unanswered, out);
    });
  }

  /**
   * Removes the copies other targets hold of an object deleted here at {@code deletedAt} (those not newer than the
   * delete). Completes with whether any was removed; targets that cannot be asked are skipped (the tombstone
   * written here first refuses their copy should it arrive later).
   */
  public CompletableFuture<Boolean> removeElsewhere(BucketProps bucket, String name, long deletedAt) {
    List<CompletableFuture<Boolean>> calls = new ArrayList<>();
    for (Node n : others(bucket, name)) {
      if (!n.state().serving()) {
        continue;
      }
      String url = n.url() + ObjectTransport.path(ObjectTransport.OBJECTS, bucket, name) + "&"
          + ObjectTransport.BEFORE + "=" + deletedAt;
      calls.add(client.send("DELETE", url, null, Map.class)
          .thenApply(m -> m != null && Boolean.TRUE.equals(m.get("removed")))
          .exceptionally(err -> {
            log.warn("node={} bucket={} object={} removing the copy on {} failed: {}", self, bucket.bucket(), name,
                n.id(), ControlClient.cause(err).toString());
            return false;
          }));
    }
    return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
        .thenApply(v -> calls.stream().anyMatch(CompletableFuture::join));
  }

  /** Every other target of the map, in HRW order for the object: where a copy not yet moved here may be. */
  List<Node> others(BucketProps bucket, String name) {
    return cluster.require().placement().rankedHolders(PlacementKey.digest(bucket.bucket(), name)).stream()
        .filter(n -> !n.id().equals(self)).toList();
  }
}
