package io.granary.loader.protocol;

import io.granary.loader.LoaderException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;

/** The JDK HttpClient as the native and http protocols use it: HTTP/1.1, redirects followed by hand. */
final class JdkHttp {
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
  /** aisloader's default request timeout: generous, since a large object on a slow link is not an error. */
  static final Duration REQUEST_TIMEOUT = Duration.ofMinutes(10);
  private static final int MAX_HOPS = 3;

  private JdkHttp() {}

  static HttpClient client() {
    // NEVER: a proxy's 307 is followed here, so a PUT's body is only sent to the target (Expect: 100-continue).
    return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).followRedirects(HttpClient.Redirect.NEVER)
        .connectTimeout(CONNECT_TIMEOUT).build();
  }

  /** The GET client of the native and http protocols' object reads. */
  static Http1Gets gets() {
    return new Http1Gets(CONNECT_TIMEOUT, REQUEST_TIMEOUT);
  }

  /**
   * Hands a GET's body to {@code consumer} when its status is the one expected (200, or 206 for a {@code range}),
   * else throws the {@link StatusException} it says; closes the body either way.
   */
  static long consume(Http1Gets.Response r, String range, ObjectClient.BodyConsumer consumer) throws IOException {
    try (InputStream in = r.body()) {
      if (r.head().status() != (range == null ? 200 : 206)) {
        throw StatusException.of(r.head().status(), in.readNBytes(4096));
      }
      return consumer.consume(in, r.head().etag());
    }
  }

  /** Builds a request for {@code uri}; the method and body are the caller's. */
  interface RequestFactory {
    HttpRequest build(URI uri);
  }

  /** GETs of whole objects ({@code range} null) or of a {@code Range}, for any URI a redirect leads to. */
  static RequestFactory get(String range) {
    return u -> {
      HttpRequest.Builder b = HttpRequest.newBuilder(u).GET().timeout(REQUEST_TIMEOUT);
      return (range == null ? b : b.header("Range", range)).build();
    };
  }

  /** Sends, following up to three 307/302/301 hops; the answer is the first that is not a redirect. */
  static <T> HttpResponse<T> send(HttpClient http, URI uri, RequestFactory requests, HttpResponse.BodyHandler<T> h)
      throws IOException, InterruptedException {
    URI u = uri;
    for (int hop = 0; ; hop++) {
      HttpResponse<T> r = http.send(requests.build(u), h);
      int s = r.statusCode();
      String loc = r.headers().firstValue("Location").orElse(null);
      if ((s == 307 || s == 308 || s == 302 || s == 301) && loc != null && hop < MAX_HOPS) {
        discard(r.body());
        u = u.resolve(loc);
        continue;
      }
      return r;
    }
  }

  /** Reads a small body (an error, a redirect) to the end, so that its connection can be reused. */
  static byte[] small(Object body) throws IOException {
    if (body instanceof InputStream in) {
      try (in) {
        return in.readNBytes(4096);
      }
    }
    return body instanceof byte[] b ? b : new byte[0];
  }

  private static void discard(Object body) throws IOException {
    if (body instanceof InputStream in) {
      try (in) {
        in.transferTo(OutputStreamHolder.NULL);
      }
    }
  }

  private static final class OutputStreamHolder {
    static final OutputStream NULL = OutputStream.nullOutputStream();
  }

  /** The one-line reason a probe of {@code endpoint} failed to get any answer. */
  static LoaderException unreachable(URI endpoint, Exception e) {
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
    }
    String why = e instanceof HttpConnectTimeoutException ? "no connection within " + CONNECT_TIMEOUT.toSeconds() + "s"
        : e instanceof HttpTimeoutException ? "no answer in time"
        : e instanceof ConnectException || e.getCause() instanceof ConnectException ? "connection refused"
        : e.getCause() instanceof UnresolvedAddressException ? "unknown host"
        : e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    return new LoaderException("cannot reach " + endpoint + ": " + why);
  }
}
