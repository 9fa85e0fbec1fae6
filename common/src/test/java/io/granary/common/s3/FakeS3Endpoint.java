package io.granary.common.s3;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A loopback HTTP server that answers every request with one canned response and records the requests, so a
 * real S3 SDK client can be pointed at the XML this package writes (and its request bodies fed to our parsers).
 */
final class FakeS3Endpoint implements AutoCloseable {

  /** A request as it arrived. */
  record Recorded(String method, String path, String query, byte[] body) {
  }

  /** The response to send: status, headers (Content-Length is computed), body. */
  record Canned(int status, Map<String, String> headers, byte[] body) {

    static Canned xml(S3XmlDocument doc) {
      return new Canned(200, Map.of("Content-Type", S3XmlDocument.CONTENT_TYPE, "x-amz-request-id", "ok-req"),
          doc.toXml());
    }

    /** The status, headers and body of a rendered Netty response (which is released). */
    static Canned of(FullHttpResponse r) {
      try {
        Map<String, String> h = new LinkedHashMap<>();
        r.headers().forEach(e -> {
          if (!e.getKey().equalsIgnoreCase(HttpHeaderNames.CONTENT_LENGTH.toString())) {
            h.put(e.getKey(), e.getValue());
          }
        });
        return new Canned(r.status().code(), h, ByteBufUtil.getBytes(r.content()));
      } finally {
        r.release();
      }
    }
  }

  private final HttpServer server;
  private final List<Recorded> requests = Collections.synchronizedList(new ArrayList<>());
  private volatile Canned next = new Canned(500, Map.of(), new byte[0]);

  FakeS3Endpoint() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.start();
  }

  URI uri() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  void respond(Canned c) {
    next = c;
  }

  Recorded lastRequest() {
    synchronized (requests) {
      return requests.get(requests.size() - 1);
    }
  }

  private void handle(HttpExchange ex) throws IOException {
    byte[] body;
    try (InputStream in = ex.getRequestBody()) {
      body = in.readAllBytes();
    }
    requests.add(new Recorded(ex.getRequestMethod(), ex.getRequestURI().getRawPath(), ex.getRequestURI().getRawQuery(), body));
    Canned c = next;
    c.headers().forEach((k, v) -> ex.getResponseHeaders().add(k, v));
    boolean noBody = ex.getRequestMethod().equals("HEAD") || c.body().length == 0;
    ex.sendResponseHeaders(c.status(), noBody ? -1 : c.body().length);
    if (!noBody) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(c.body());
      }
    }
    ex.close();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
