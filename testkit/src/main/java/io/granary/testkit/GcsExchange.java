package io.granary.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.GZIPInputStream;
import java.util.Map;

/** One request to the fake GCS server: parsed query, helpers to answer JSON or an empty body. */
final class GcsExchange {
  final HttpExchange http;
  final Map<String, String> query;
  final String base; // scheme://host:port as the client addressed us (through a FaultProxy: the proxy's)

  GcsExchange(HttpExchange http) {
    this.http = http;
    this.query = PercentCodec.query(http.getRequestURI().getRawQuery());
    String host = http.getRequestHeaders().getFirst("Host");
    this.base = "http://" + (host != null ? host : "127.0.0.1:" + http.getLocalAddress().getPort());
  }

  String param(String name) {
    return query.get(name);
  }

  Long longParam(String name) {
    String v = query.get(name);
    if (v == null || v.isEmpty()) {
      return null;
    }
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw GcsException.badRequest("Invalid " + name + ": " + v);
    }
  }

  /** The request body, gunzipped when the client compressed it (the Java client gzips upload bodies). */
  InputStream body() throws IOException {
    String encoding = header("Content-Encoding");
    InputStream in = http.getRequestBody();
    return encoding != null && encoding.trim().equalsIgnoreCase("gzip")
        ? new GZIPInputStream(in, Staging.BUFFER) : in;
  }

  String header(String name) {
    return http.getRequestHeaders().getFirst(name);
  }

  GcsStore.Preconditions preconditions() {
    return new GcsStore.Preconditions(longParam("ifGenerationMatch"), longParam("ifGenerationNotMatch"),
        longParam("ifMetagenerationMatch"), longParam("ifMetagenerationNotMatch"));
  }

  void json(int status, JsonNode body) throws IOException {
    byte[] bytes = GcsJson.MAPPER.writeValueAsBytes(body);
    http.getResponseHeaders().set("Content-Type", "application/json; charset=UTF-8");
    http.sendResponseHeaders(status, bytes.length);
    http.getResponseBody().write(bytes);
  }

  void empty(int status) throws IOException {
    http.sendResponseHeaders(status, -1);
  }

  void error(GcsException e) throws IOException {
    if (e.status == 304) {
      empty(304);
    } else {
      json(e.status, GcsJson.error(e.status, e.reason, e.getMessage()));
    }
  }
}
