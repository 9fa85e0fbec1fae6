package io.granary.operator.clusterapi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.ClusterMap;
import io.granary.common.s3.auth.Credentials;
import io.granary.common.s3.auth.RequestSigner;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * {@link ClusterApi} over HTTP to a proxy URL. With credentials it signs every request as the CLI does
 * ({@link RequestSigner}), for proxies that require signatures on the native API. Answers are small JSON documents.
 */
public final class HttpClusterApi implements ClusterApi {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final ObjectMapper JSON = ClusterJson.mapper();

  private final HttpClient http;
  private final String baseUrl;
  private final Optional<RequestSigner> signer;

  /** {@code baseUrl}: {@code http://HOST:PORT} of a proxy, or of a Service in front of the proxies. */
  public HttpClusterApi(HttpClient http, String baseUrl, Optional<Credentials> credentials) {
    this.http = http;
    this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    this.signer = credentials.map(c -> new RequestSigner(c.accessKey(), c.secretKey()));
  }

  @Override
  public ClusterMap map() {
    HttpResponse<String> r = send(request("/v1/cluster/map").GET());
    requireOk(r);
    return parse(r, ClusterMap.class);
  }

  @Override
  public Optional<NodeReport> node(String id) {
    HttpResponse<String> r = send(request(nodePath(id)).GET());
    if (r.statusCode() == 404) {
      return Optional.empty();
    }
    requireOk(r);
    return Optional.of(parse(r, NodeReport.class));
  }

  @Override
  public void setState(String id, String state) {
    String body = JSON.createObjectNode().put("state", state).toString();
    HttpResponse<String> r = send(request(nodePath(id)).PUT(HttpRequest.BodyPublishers.ofString(body))
        .header("Content-Type", "application/json"));
    requireOk(r);
  }

  private static String nodePath(String id) {
    return "/v1/cluster/nodes/" + URLEncoder.encode(id, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(TIMEOUT);
  }

  private HttpResponse<String> send(HttpRequest.Builder b) {
    HttpRequest r = b.build();
    if (signer.isPresent()) {
      r = sign(r, signer.get());
    }
    try {
      return http.send(r, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new ClusterApiException(0, null, r.method() + " " + r.uri() + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ClusterApiException(0, null, r.method() + " " + r.uri() + ": interrupted", e);
    }
  }

  /** The request with SigV4 headers over the Host header java.net.http will send. */
  private static HttpRequest sign(HttpRequest r, RequestSigner signer) {
    URI u = r.uri();
    int port = u.getPort();
    boolean defaultPort = port == -1 || port == 80 && "http".equals(u.getScheme())
        || port == 443 && "https".equals(u.getScheme());
    String host = u.getHost() + (defaultPort ? "" : ":" + port);
    Map<String, String> headers = signer.sign(r.method(), host,
        u.getRawPath() == null || u.getRawPath().isEmpty() ? "/" : u.getRawPath(),
        u.getRawQuery() == null ? "" : u.getRawQuery(), Instant.now());
    HttpRequest.Builder b = HttpRequest.newBuilder(r, (name, value) -> true);
    headers.forEach(b::setHeader);
    return b.build();
  }

  private static void requireOk(HttpResponse<String> r) {
    if (r.statusCode() / 100 == 2) {
      return;
    }
    String code = null;
    String message = r.body();
    try {
      JsonNode err = JSON.readTree(r.body());
      code = err.path("code").asText(null);
      message = err.path("message").asText(message);
    } catch (IOException | RuntimeException e) {
      // Not our JSON error (a load balancer's page): the raw body says what it can.
    }
    throw new ClusterApiException(r.statusCode(), code, r.request().method() + " " + r.uri().getPath() + ": "
        + r.statusCode() + (code == null ? "" : " " + code) + ": " + message, null);
  }

  private static <T> T parse(HttpResponse<String> r, Class<T> type) {
    try {
      return JSON.readValue(r.body(), type);
    } catch (IOException e) {
      throw new ClusterApiException(r.statusCode(), null, r.request().method() + " " + r.uri().getPath()
          + ": unreadable answer: " + e.getMessage(), e);
    }
  }
}
