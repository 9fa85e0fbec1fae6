package io.granary.loader.protocol;

import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.TargetPlacement;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.common.auth.ClusterSigner;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/**
 * Direct-to-target routing ({@code --direct}): the cluster map fetched from a proxy, each object's owner computed
 * by HRW exactly as the proxy's redirect does ({@link TargetPlacement#owner} of {@link PlacementKey#digest}), and
 * each request URL signed with the cluster secret as the proxy signs its 307 ({@link ClusterSigner#signUrl}), so
 * the target serves it with no proxy in the path.
 *
 * <p>The map is fetched once at the start and again when a request fails in a way a newer map may fix (refused
 * connection, 503, an offline owner): {@link #refresh} re-fetches at most every {@value #MIN_REFRESH_MILLIS} ms,
 * however many workers ask. Thread-safe: the current map is one immutable {@link Route} behind a volatile field.
 */
final class TargetRoutes {
  /** How long a signed URL stays valid: the proxy's redirect validity. Each request is signed afresh. */
  static final long SIGNED_URL_SECONDS = 300;
  static final long MIN_REFRESH_MILLIS = 250;

  /** One map version and its placement. */
  record Route(ClusterMap map, TargetPlacement placement) {
    Route(ClusterMap map) {
      this(map, map.placement());
    }
  }

  private final URI proxy;
  private final HttpClient http;
  private final Bucket bucket;
  private final ClusterSigner signer;
  private volatile Route current;
  private long lastFetchNanos;

  /** {@code signer}: what {@link #signed} signs with; null for S3, whose requests carry their own signature. */
  TargetRoutes(URI proxy, HttpClient http, Bucket bucket, ClusterSigner signer) {
    this.proxy = proxy;
    this.http = http;
    this.bucket = bucket;
    this.signer = signer;
  }

  /** The map in use; null before the first {@link #fetch}. */
  Route current() {
    return current;
  }

  /** Fetches the map from the proxy and makes it current. */
  synchronized Route fetch() throws IOException, InterruptedException {
    HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(URI.create(proxy + "/v1/cluster/map")).GET()
        .timeout(JdkHttp.CONNECT_TIMEOUT.multipliedBy(2)).build(), HttpResponse.BodyHandlers.ofByteArray());
    lastFetchNanos = System.nanoTime();
    if (r.statusCode() != 200) {
      throw StatusException.of(r.statusCode(), r.body());
    }
    ClusterMap map = ClusterJson.mapper().readValue(r.body(), ClusterMap.class);
    Route now = current;
    if (now == null || now.map().version() != map.version() || !now.map().uuid().equals(map.uuid())) {
      current = new Route(map);
    }
    return current;
  }

  /**
   * Re-fetches the map after a request routed by {@code seen} failed, unless another worker already did (the map
   * changed since) or the last fetch was under {@value #MIN_REFRESH_MILLIS} ms ago. A failed fetch keeps the map.
   */
  void refresh(Route seen) throws InterruptedException {
    synchronized (this) {
      if (current != seen || System.nanoTime() - lastFetchNanos < MIN_REFRESH_MILLIS * 1_000_000) {
        return;
      }
      try {
        fetch();
      } catch (IOException | RuntimeException e) {
        // the proxy is unreachable or answered oddly: keep routing by the map we have; the retry tells
      }
    }
  }

  /**
   * The owner of {@code name} under {@code route}: the target the proxy would redirect to. A 503
   * {@link StatusException}, as the proxy would answer, when no target is placed or the owner is offline.
   */
  Node owner(Route route, String name) throws StatusException {
    Node owner = route.placement().owner(PlacementKey.digest(bucket, name)).orElseThrow(() ->
        new StatusException(503, "503 no target in the cluster map (v" + route.map().version() + ")"));
    if (owner.state() == NodeState.OFFLINE) {
      throw new StatusException(503, "503 target " + owner.id() + " that owns '" + name + "' is offline (cluster map v"
          + route.map().version() + ")");
    }
    return owner;
  }

  /** {@code owner}'s URL for {@code rawTarget} (encoded path and query), signed for {@code method}. */
  URI signed(Node owner, String method, String rawTarget) {
    return URI.create(owner.url() + signer.signUrl(method, rawTarget, SIGNED_URL_SECONDS));
  }
}
