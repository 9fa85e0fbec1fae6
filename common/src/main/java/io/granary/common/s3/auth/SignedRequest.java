package io.granary.common.s3.auth;

import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import java.util.Objects;

/**
 * The parts of an HTTP request that SigV4 signs, exactly as the client sent them.
 *
 * @param method the request method, e.g. {@code GET}
 * @param rawPath the path as sent, still percent-encoded
 * @param rawQuery the query without '?', as sent (empty when there is none)
 * @param headers the request headers (names are case-insensitive)
 */
public record SignedRequest(String method, String rawPath, String rawQuery, HttpHeaders headers) {

  public SignedRequest {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(rawPath, "rawPath");
    Objects.requireNonNull(headers, "headers");
    rawQuery = rawQuery == null ? "" : rawQuery;
  }

  /** The request line and headers of a Netty request; the URI is split at its first '?'. */
  public static SignedRequest of(HttpRequest request) {
    String uri = request.uri();
    int q = uri.indexOf('?');
    return q < 0
        ? new SignedRequest(request.method().name(), uri, "", request.headers())
        : new SignedRequest(request.method().name(), uri.substring(0, q), uri.substring(q + 1), request.headers());
  }
}
