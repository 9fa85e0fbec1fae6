package io.granary.common.control;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.clustermap.ClusterJson;
import io.granary.common.auth.ClusterSigner;
import io.granary.common.error.ErrorResponse;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * JSON-over-HTTP calls between nodes: join, metasync, health, per-target listings. Control traffic, and one kind of
 * bulk read: {@link #stream} (an erasure-coded slice read while an object is rebuilt); objects themselves move
 * through the object transport. Non-2xx answers become {@link RemoteCallException} carrying the peer's error.
 */
public final class ControlClient {
  private static final ObjectMapper JSON = ClusterJson.mapper();

  private final HttpClient http;
  private final Duration timeout;
  private final ClusterSigner signer; // signs every request when the cluster has a secret; may be null

  public ControlClient(Duration timeout, Executor executor) {
    this(timeout, executor, null);
  }

  public ControlClient(Duration timeout, Executor executor, ClusterSigner signer) {
    this.timeout = timeout;
    this.signer = signer;
    HttpClient.Builder b = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(timeout)
        .followRedirects(HttpClient.Redirect.NEVER);
    if (executor != null) {
      b.executor(executor);
    }
    this.http = b.build();
  }

  /** GET {@code url} and decode the JSON answer as {@code type}. */
  public <T> CompletableFuture<T> get(String url, Class<T> type) {
    return send(HttpRequest.newBuilder(URI.create(url)).GET(), JSON.constructType(type));
  }

  public <T> CompletableFuture<T> get(String url, JavaType type) {
    return send(HttpRequest.newBuilder(URI.create(url)).GET(), type);
  }

  /** Sends {@code body} as JSON with {@code method} and decodes the answer as {@code type} (Void for none). */
  public <T> CompletableFuture<T> send(String method, String url, Object body, Class<T> type) {
    byte[] bytes;
    try {
      bytes = body == null ? new byte[0] : JsonBody.of(body).bytes();
    } catch (UncheckedIOException e) {
      return CompletableFuture.failedFuture(e.getCause());
    }
    return sendJson(method, url, bytes, type);
  }

  /**
   * {@link #send(String, String, Object, Class)} with a body serialized once for many calls (metasync). Not an
   * overload of {@code send}: a call with a literal {@code null} body would pick the more specific one.
   */
  public <T> CompletableFuture<T> sendSerialized(String method, String url, JsonBody body, Class<T> type) {
    return sendJson(method, url, body.bytes(), type);
  }

  private <T> CompletableFuture<T> sendJson(String method, String url, byte[] json, Class<T> type) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url))
        .method(method, HttpRequest.BodyPublishers.ofByteArray(json))
        .header("Content-Type", "application/json");
    return send(b, JSON.constructType(type));
  }

  /** Relays a request as-is and returns the peer's raw answer, whatever its status (admin forwarding). */
  public CompletableFuture<HttpResponse<byte[]>> forward(String method, String url, byte[] body, String contentType) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url))
        .method(method, body == null || body.length == 0
            ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body))
        .timeout(timeout);
    if (contentType != null) {
      b.header("Content-Type", contentType);
    }
    return http.sendAsync(sign(b).build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  /**
   * GETs {@code url} and hands over its body as a stream, read by the caller as it arrives (the client's flow
   * control holds the peer back, so memory stays a few buffers whatever the size); any status. The caller closes it.
   */
  public CompletableFuture<HttpResponse<java.io.InputStream>> stream(String url) {
    HttpRequest req = sign(HttpRequest.newBuilder(URI.create(url)).GET().timeout(timeout)).build();
    return http.sendAsync(req, HttpResponse.BodyHandlers.ofInputStream());
  }

  /** Adds the cluster signature headers (JDK HttpClient builders cannot be inspected, so sign from the URI). */
  private HttpRequest.Builder sign(HttpRequest.Builder b) {
    if (signer == null) {
      return b;
    }
    HttpRequest probe = b.copy().build();
    URI u = probe.uri();
    String target = u.getRawPath() + (u.getRawQuery() == null ? "" : "?" + u.getRawQuery());
    HttpHeaders h = new DefaultHttpHeaders();
    signer.signHeaders(probe.method(), target, h);
    for (var e : h) {
      b.setHeader(e.getKey(), e.getValue());
    }
    return b;
  }

  private <T> CompletableFuture<T> send(HttpRequest.Builder b, JavaType type) {
    HttpRequest req = sign(b.timeout(timeout)).build();
    return http.sendAsync(req, HttpResponse.BodyHandlers.ofByteArray()).thenApply(resp -> {
      int status = resp.statusCode();
      if (status / 100 != 2) {
        throw new CompletionException(RemoteCallException.of(req.method(), req.uri(), status, resp.body()));
      }
      if (type.getRawClass() == Void.class || resp.body().length == 0) {
        return null;
      }
      try {
        return JSON.readValue(resp.body(), type);
      } catch (IOException e) {
        throw new UncheckedIOException("undecodable answer from " + req.method() + " " + req.uri(), e);
      }
    });
  }

  /** Unwraps the cause of a failed future. */
  public static Throwable cause(Throwable t) {
    while ((t instanceof CompletionException || t instanceof java.util.concurrent.ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /** A peer answered with an error status. */
  public static final class RemoteCallException extends RuntimeException {
    private final int status;
    private final ErrorResponse error;

    RemoteCallException(String message, int status, ErrorResponse error) {
      super(message);
      this.status = status;
      this.error = error;
    }

    static RemoteCallException of(String method, URI uri, int status, byte[] body) {
      ErrorResponse err;
      try {
        err = JSON.readValue(body, ErrorResponse.class);
      } catch (IOException e) {
        err = new ErrorResponse("Unknown", new String(body, StandardCharsets.UTF_8), null);
      }
      return new RemoteCallException(method + " " + uri + " -> " + status + " " + err.code() + ": " + err.message(),
          status, err);
    }

    public int status() {
      return status;
    }

    /** The peer's error body ({@code code} is "Unknown" when it sent none). */
    public ErrorResponse error() {
      return error;
    }
  }
}
