package io.granary.it.support;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A real HTTP client (the JDK's) for tests, with helpers that stream and hash bodies instead of buffering them. */
public final class Http {
  /**
   * Follows 307 like a well-behaved client; PUT bodies are replayed from byte arrays or files. {@link #send} and
   * {@link #sendHashing} follow redirects of a request sent "through" it themselves ({@link #sendFollowing}): the
   * JDK 17 client leaves the timer of a redirected request running (JDK-8304701), and when it fires, a timeout later,
   * it aborts whatever request then uses that pooled connection (EcIT lost a GET mid-body that way in CI).
   */
  public static final HttpClient FOLLOW = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .followRedirects(HttpClient.Redirect.NORMAL).connectTimeout(Duration.ofSeconds(5)).build();
  /** Sees redirects as they are. */
  public static final HttpClient NO_FOLLOW = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(5)).build();

  private Http() {}

  /** A response whose body has been read (small bodies) or hashed (object bodies). */
  public record Reply(int status, Map<String, List<String>> headers, byte[] body, String sha256, long length) {
    public String bodyText() {
      return new String(body, StandardCharsets.UTF_8);
    }

    public Optional<String> header(String name) {
      return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
          .flatMap(e -> e.getValue().stream()).findFirst();
    }
  }

  public static Reply get(String url) throws IOException, InterruptedException {
    return send(FOLLOW, HttpRequest.newBuilder(URI.create(url)).GET());
  }

  public static Reply send(HttpClient client, HttpRequest.Builder b) throws IOException, InterruptedException {
    HttpResponse<byte[]> r = send(client, b.timeout(Duration.ofSeconds(120)).build(),
        HttpResponse.BodyHandlers.ofByteArray());
    return new Reply(r.statusCode(), r.headers().map(), r.body(), null, r.body().length);
  }

  /** Sends and streams the response body through SHA-256 without keeping it. */
  public static Reply sendHashing(HttpClient client, HttpRequest.Builder b) throws IOException, InterruptedException {
    HttpResponse<InputStream> r = send(client, b.timeout(Duration.ofSeconds(300)).build(),
        HttpResponse.BodyHandlers.ofInputStream());
    MessageDigest md = sha256();
    long n = 0;
    byte[] buf = new byte[64 * 1024];
    try (InputStream in = r.body()) {
      for (int k; (k = in.read(buf)) > 0; ) {
        md.update(buf, 0, k);
        n += k;
      }
    }
    return new Reply(r.statusCode(), r.headers().map(), new byte[0], HexFormat.of().formatHex(md.digest()), n);
  }

  private static <T> HttpResponse<T> send(HttpClient client, HttpRequest req, HttpResponse.BodyHandler<T> handler)
      throws IOException, InterruptedException {
    return client == FOLLOW ? sendFollowing(req, handler) : client.send(req, handler);
  }

  /**
   * Sends {@code req} and follows up to 5 redirects as {@link #FOLLOW} would (303 as a GET; 301, 302, 307 and 308
   * with the same method and body), each hop a request of its own, so that no timer outlives its exchange.
   */
  public static <T> HttpResponse<T> sendFollowing(HttpRequest req, HttpResponse.BodyHandler<T> handler)
      throws IOException, InterruptedException {
    HttpRequest hop = req;
    for (int hops = 0; ; hops++) {
      HttpResponse<T> r = NO_FOLLOW.send(hop, handler);
      Optional<String> location = r.headers().firstValue("location");
      boolean redirect = switch (r.statusCode()) {
        case 301, 302, 303, 307, 308 -> location.isPresent();
        default -> false;
      };
      if (!redirect || hops == 5) {
        return r;
      }
      if (r.body() instanceof InputStream in) {
        in.close();
      }
      URI next = hop.uri().resolve(location.get());
      hop = r.statusCode() == 303
          ? HttpRequest.newBuilder(hop, (name, value) -> true).uri(next).GET().build()
          : HttpRequest.newBuilder(hop, (name, value) -> true).uri(next).build();
    }
  }

  public static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  public static String sha256(byte[] data) {
    return HexFormat.of().formatHex(sha256().digest(data));
  }
}
