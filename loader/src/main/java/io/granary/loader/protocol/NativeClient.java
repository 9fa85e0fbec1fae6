package io.granary.loader.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.common.http.RequestPath;
import io.granary.loader.LoaderException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
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
 */
public final class NativeClient implements ObjectClient {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final URI endpoint;
  private final String bucket;
  private final String display;
  private final String query;
  private final HttpClient http = JdkHttp.client();

  public NativeClient(URI endpoint, String bucketUri) {
    this.endpoint = endpoint;
    int i = bucketUri.indexOf("://");
    String provider = i < 0 ? "ais" : bucketUri.substring(0, i);
    this.bucket = i < 0 ? bucketUri : bucketUri.substring(i + 3);
    this.display = provider + "://" + bucket;
    this.query = provider.equals("ais") ? "" : "?provider=" + URLEncoder.encode(provider, StandardCharsets.UTF_8);
  }

  private URI object(String name) {
    return URI.create(endpoint + "/v1/objects/" + RequestPath.encodePath(bucket) + "/" + RequestPath.encodePath(name)
        + query);
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
  }

  @Override
  public long get(String name, BodyConsumer consumer) throws Exception {
    HttpResponse<InputStream> r = JdkHttp.send(http, object(name),
        u -> HttpRequest.newBuilder(u).GET().timeout(JdkHttp.REQUEST_TIMEOUT).build(),
        HttpResponse.BodyHandlers.ofInputStream());
    if (r.statusCode() != 200) {
      throw StatusException.of(r.statusCode(), JdkHttp.small(r.body()));
    }
    try (InputStream in = r.body()) {
      return consumer.consume(in, etag(r));
    }
  }

  @Override
  public void put(String name, long size, Supplier<InputStream> content) throws Exception {
    HttpResponse<byte[]> r = JdkHttp.send(http, object(name), u -> HttpRequest.newBuilder(u)
        .expectContinue(size > 0).timeout(JdkHttp.REQUEST_TIMEOUT)
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
    HttpResponse<byte[]> r = JdkHttp.send(http, object(name),
        u -> HttpRequest.newBuilder(u).DELETE().timeout(JdkHttp.REQUEST_TIMEOUT).build(),
        HttpResponse.BodyHandlers.ofByteArray());
    if (r.statusCode() / 100 != 2 && r.statusCode() != 404) {
      throw StatusException.of(r.statusCode(), r.body());
    }
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
    // HttpClient has no close() before JDK 21; its threads end with it.
  }
}
