package io.granary.loader.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.Bucket;
import io.granary.common.api.ObjectAddress;
import io.granary.common.auth.ClusterSigner;
import io.granary.common.http.RequestPath;
import io.granary.loader.LoaderException;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The native API on one proxy: {@code /v1/objects/BUCKET/NAME}, following the proxy's 307 to the owning target.
 * PUTs send {@code Expect: 100-continue}, so the proxy redirects before any body byte and the body goes to the
 * target only. Bucket {@code s3://b} or {@code gs://b} adds {@code ?provider=}, for loading the cache.
 *
 * <p>Direct ({@code --direct}, a cluster signer given): object requests go straight to the owning target, found by
 * HRW over the proxy's cluster map and signed with the cluster secret ({@link TargetRoutes}); the proxy only
 * answers the probe, the map and listings. A request refused by the connection or answered 503 re-fetches the map
 * and is sent once more.
 */
public final class NativeClient implements ObjectClient {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  /** What the direct probe HEADs on each target when the run has no name yet; any answer but 401/403 will do. */
  private static final String PROBE_NAME = "granary-load-probe";

  private final URI endpoint;
  private final String bucket;
  private final String display;
  private final String query;
  private final HttpClient http = JdkHttp.client();
  private final Http1Gets gets = JdkHttp.gets();
  private final TargetRoutes routes; // null: through the proxy

  public NativeClient(URI endpoint, String bucketUri) {
    this(endpoint, bucketUri, null);
  }

  /** {@code signer} non-null: direct to targets, requests signed with it. */
  public NativeClient(URI endpoint, String bucketUri, ClusterSigner signer) {
    this.endpoint = endpoint;
    int i = bucketUri.indexOf("://");
    String provider = i < 0 ? "ais" : bucketUri.substring(0, i);
    this.bucket = i < 0 ? bucketUri : bucketUri.substring(i + 3);
    this.display = provider + "://" + bucket;
    this.query = provider.equals("ais") ? "" : "?provider=" + URLEncoder.encode(provider, StandardCharsets.UTF_8);
    this.routes = signer == null ? null : new TargetRoutes(endpoint, http, placementBucket(bucketUri), signer);
  }

  /** The bucket as the proxy parses it for placement (provider from the scheme, ais by default). */
  private static Bucket placementBucket(String bucketUri) {
    try {
      return ObjectAddress.bucket(bucketUri, null);
    } catch (RuntimeException e) {
      throw new LoaderException("--bucket: " + e.getMessage());
    }
  }

  /** The object's request target: encoded path and query, as a proxy or target receives it. */
  private String rawTarget(String name) {
    return "/v1/objects/" + RequestPath.encodePath(bucket) + "/" + RequestPath.encodePath(name) + query;
  }

  @Override
  public void probe(String sampleName) {
    URI u = URI.create(endpoint + "/v1/buckets/" + RequestPath.encodePath(bucket) + query);
    HttpResponse<byte[]> r;
    try {
      r = http.send(HttpRequest.newBuilder(u).method("HEAD", HttpRequest.BodyPublishers.noBody())
          .timeout(JdkHttp.CONNECT_TIMEOUT.multipliedBy(2)).build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (Exception e) {
      throw JdkHttp.unreachable(endpoint, e);
    }
    switch (r.statusCode()) {
      case 200 -> { }
      case 404 -> throw new LoaderException("bucket '" + display + "' does not exist (404 from " + endpoint + ")");
      case 401, 403 -> throw new LoaderException(endpoint + " refused the request (" + r.statusCode()
          + "): this proxy requires signed /v1/ requests, which the native protocol does not send yet; "
          + "use --protocol s3");
      default -> throw new LoaderException("probe of bucket '" + display + "' at " + endpoint + " answered "
          + r.statusCode());
    }
    if (routes != null) {
      probeTargets(sampleName == null ? PROBE_NAME : sampleName);
    }
  }

  /**
   * Direct only: fetches the map and sends a signed HEAD to every active target, so that an unreachable target URL
   * or a wrong secret ends the run before it starts.
   */
  private void probeTargets(String name) {
    TargetRoutes.Route route;
    try {
      route = routes.fetch();
    } catch (Exception e) {
      throw e instanceof StatusException s ? new LoaderException("cannot read the cluster map from " + endpoint + ": "
          + s.getMessage()) : JdkHttp.unreachable(endpoint, e);
    }
    if (route.placement().size() == 0) {
      throw new LoaderException("--direct: the cluster map (v" + route.map().version() + ") of " + endpoint
          + " has no targets");
    }
    for (Node t : route.map().targets().values()) {
      if (t.state() != NodeState.ACTIVE) {
        continue;
      }
      HttpResponse<byte[]> r;
      try {
        r = http.send(HttpRequest.newBuilder(routes.signed(t, "HEAD", rawTarget(name)))
            .method("HEAD", HttpRequest.BodyPublishers.noBody()).timeout(JdkHttp.CONNECT_TIMEOUT.multipliedBy(2))
            .build(), HttpResponse.BodyHandlers.ofByteArray());
      } catch (Exception e) {
        throw new LoaderException("--direct: " + JdkHttp.unreachable(URI.create(t.url()), e).getMessage()
            + " (target " + t.id() + " in the cluster map of " + endpoint + "; direct mode needs every target "
            + "reachable from this host)");
      }
      if (r.statusCode() == 401 || r.statusCode() == 403) {
        throw new LoaderException("--direct: target " + t.id() + " at " + t.url() + " refused a signed request ("
            + r.statusCode() + "): the cluster secret is not this cluster's");
      }
    }
  }

  @Override
  public long get(String name, BodyConsumer consumer) throws Exception {
    return get(name, 0, 0, consumer);
  }

  @Override
  public long get(String name, long offset, long length, BodyConsumer consumer) throws Exception {
    String range = ObjectClient.rangeHeader(offset, length);
    return JdkHttp.consume(fetch(name, range), range, consumer);
  }

  /** A GET as {@link #send} sends other requests, through the loader's own GET client. */
  private Http1Gets.Response fetch(String name, String range) throws IOException, InterruptedException {
    String raw = rawTarget(name);
    if (routes == null) {
      return gets.get(URI.create(endpoint + raw), range);
    }
    TargetRoutes.Route route = routes.current() != null ? routes.current() : routes.fetch();
    try {
      Http1Gets.Response r = gets.get(routes.signed(routes.owner(route, name), "GET", raw), range);
      if (r.head().status() != 503) {
        return r;
      }
      r.body().close();
    } catch (ConnectException | StatusException e) {
      // the owner is down, offline or gone: a newer map may place the object elsewhere
    }
    routes.refresh(route);
    return gets.get(routes.signed(routes.owner(routes.current(), name), "GET", raw), range);
  }

  @Override
  public void put(String name, long size, Supplier<InputStream> content) throws Exception {
    HttpResponse<byte[]> r = send("PUT", name, u -> HttpRequest.newBuilder(u)
        // Through a proxy, 100-continue gets the 307 before any body byte; a target needs no such wait.
        .expectContinue(size > 0 && routes == null).timeout(JdkHttp.REQUEST_TIMEOUT)
        .header("Content-Type", "application/octet-stream")
        .PUT(size == 0 ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.fromPublisher(HttpRequest.BodyPublishers.ofInputStream(content), size))
        .build(), HttpResponse.BodyHandlers.ofByteArray());
    if (r.statusCode() / 100 != 2) {
      throw StatusException.of(r.statusCode(), r.body());
    }
  }

  @Override
  public void delete(String name) throws Exception {
    HttpResponse<byte[]> r = send("DELETE", name,
        u -> HttpRequest.newBuilder(u).DELETE().timeout(JdkHttp.REQUEST_TIMEOUT).build(),
        HttpResponse.BodyHandlers.ofByteArray());
    if (r.statusCode() / 100 != 2 && r.statusCode() != 404) {
      throw StatusException.of(r.statusCode(), r.body());
    }
  }

  /**
   * Sends an object request: to the proxy (following its 307), or direct to the owning target. Direct, a refused
   * connection or a 503 (from the target, or an offline owner in the map) re-fetches the map and sends once more;
   * nothing of the first answer's body has reached the caller then, so a GET or PUT is simply repeated.
   */
  private <T> HttpResponse<T> send(String method, String name, JdkHttp.RequestFactory requests,
      HttpResponse.BodyHandler<T> handler) throws IOException, InterruptedException {
    if (routes == null) {
      return JdkHttp.send(http, URI.create(endpoint + rawTarget(name)), requests, handler);
    }
    String raw = rawTarget(name);
    TargetRoutes.Route route = routes.current() != null ? routes.current() : routes.fetch();
    try {
      HttpResponse<T> r = http.send(requests.build(routes.signed(routes.owner(route, name), method, raw)), handler);
      if (r.statusCode() != 503) {
        return r;
      }
      JdkHttp.small(r.body());
    } catch (ConnectException | HttpConnectTimeoutException | StatusException e) {
      // the owner is down, offline or gone: a newer map may place the object elsewhere
    }
    routes.refresh(route);
    return http.send(requests.build(routes.signed(routes.owner(routes.current(), name), method, raw)), handler);
  }

  @Override
  public List<String> list() throws Exception {
    List<String> names = new ArrayList<>();
    String token = null;
    do {
      String q = (query.isEmpty() ? "?" : query + "&") + "limit=10000"
          + (token == null ? "" : "&token=" + URLEncoder.encode(token, StandardCharsets.UTF_8));
      HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(URI.create(endpoint + "/v1/buckets/"
          + RequestPath.encodePath(bucket) + q)).GET().timeout(JdkHttp.REQUEST_TIMEOUT).build(),
          HttpResponse.BodyHandlers.ofByteArray());
      if (r.statusCode() != 200) {
        throw StatusException.of(r.statusCode(), r.body());
      }
      JsonNode page = MAPPER.readTree(r.body());
      page.path("entries").forEach(e -> names.add(e.path("name").asText()));
      token = page.hasNonNull("token") && !page.path("token").asText().isEmpty() ? page.path("token").asText() : null;
    } while (token != null);
    return names;
  }

  static String etag(HttpResponse<?> r) {
    return r.headers().firstValue("ETag").map(NativeClient::unquote).orElse(null);
  }

  static String unquote(String s) {
    return s.length() >= 2 && s.startsWith("\"") && s.endsWith("\"") ? s.substring(1, s.length() - 1) : s;
  }

  @Override
  public void close() {
    gets.close(); // the JDK HttpClient has no close() before JDK 21; its threads end with it
  }
}
