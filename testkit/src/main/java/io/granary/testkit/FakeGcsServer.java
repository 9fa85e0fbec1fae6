package io.granary.testkit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A GCS JSON API server (JDK HttpServer on 127.0.0.1) faithful enough for the real google-cloud-storage client
 * pointed at it with {@code setHost}: object metadata with real {@code md5Hash}, {@code crc32c},
 * {@code generation} and {@code etag}; media download with Range and generation preconditions; paged listing
 * with prefix, delimiter and startOffset; media, multipart and resumable uploads; delete. Objects live as files
 * under a directory, never whole in memory. It counts requests so tests can assert how many reached it.
 *
 * <p>Routes (object names percent-encoded in one path segment, {@code /} as {@code %2F}):
 * <ul>
 *   <li>{@code GET /storage/v1/b/{b}}: bucket; {@code POST /storage/v1/b}: create bucket
 *   <li>{@code GET /storage/v1/b/{b}/o?prefix&delimiter&startOffset&endOffset&pageToken&maxResults}: listing
 *   <li>{@code GET /storage/v1/b/{b}/o/{o}}: metadata; with {@code alt=media}: the bytes. The Java client
 *       downloads from {@code GET /download/storage/v1/b/{b}/o/{o}?alt=media}, served the same way
 *   <li>{@code PATCH /storage/v1/b/{b}/o/{o}}: contentType and user metadata; {@code DELETE}: 204
 *   <li>{@code POST /upload/storage/v1/b/{b}/o?uploadType=...} and {@code PUT}/{@code DELETE} of session URIs
 * </ul>
 * Only the current generation of an object exists (no versioning); {@code generation=} naming another is a 404.
 */
public final class FakeGcsServer implements AutoCloseable {
  private static final Pattern BUCKET_PATH = Pattern.compile("^/(?:download/)?storage/v1/b/([^/]+)(/o(?:/(.+))?)?$");
  private static final Pattern UPLOAD_PATH = Pattern.compile("^/upload/storage/v1/b/([^/]+)/o$");
  private static final Pattern RANGE = Pattern.compile("bytes=(\\d*)-(\\d*)");
  private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);

  private final HttpServer server;
  private final ExecutorService pool;
  private final GcsStore store;
  private final GcsUploads uploads;
  private final URI endpoint;
  private final LongAdder requests = new LongAdder();
  private final Map<String, LongAdder> downloads = new ConcurrentHashMap<>();

  private FakeGcsServer(Path dataDir) throws IOException {
    this.store = new GcsStore(Files.createDirectories(dataDir));
    this.uploads = new GcsUploads(store);
    this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    AtomicInteger n = new AtomicInteger();
    this.pool = Executors.newFixedThreadPool(16, r -> {
      Thread t = new Thread(r, "fake-gcs-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(pool);
    server.createContext("/", this::handle);
    server.start();
    this.endpoint = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  /** Starts on a free port with objects stored under {@code dataDir}. */
  public static FakeGcsServer start(Path dataDir) throws IOException {
    return new FakeGcsServer(dataDir);
  }

  /** {@code http://127.0.0.1:PORT}. */
  public URI endpoint() {
    return endpoint;
  }

  public void createBucket(String bucket) {
    store.createBucket(bucket);
  }

  /** Stores an object directly (a new generation), as a seeding shortcut. */
  public void putObject(String bucket, String name, byte[] content, String contentType) throws IOException {
    putObject(bucket, name, content, contentType, Map.of());
  }

  /** As {@link #putObject(String, String, byte[], String)} with user metadata. */
  public void putObject(String bucket, String name, byte[] content, String contentType, Map<String, String> metadata)
      throws IOException {
    Staging staging = new Staging(store.tmpDir);
    staging.write(content, 0, content.length);
    store.commit(bucket, name, staging, contentType, metadata, GcsStore.Preconditions.NONE, null, null);
  }

  /** The current generation of an object, or -1 when absent. */
  public long generation(String bucket, String name) {
    GcsObject o = store.find(bucket, name);
    return o == null ? -1 : o.generation();
  }

  /** Replaces an object's stored bytes without changing its md5Hash/crc32c metadata: corruption at rest. */
  public void corruptObject(String bucket, String name) throws IOException {
    store.corrupt(bucket, name);
  }

  /** Media downloads ({@code alt=media}) of {@code name} served so far. */
  public long downloads(String bucket, String name) {
    LongAdder n = downloads.get(bucket + "/" + name);
    return n == null ? 0 : n.sum();
  }

  /** All requests served so far. */
  public long requests() {
    return requests.sum();
  }

  @Override
  public void close() {
    server.stop(0);
    pool.shutdownNow();
    try {
      pool.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    uploads.close();
  }

  private void handle(HttpExchange http) {
    requests.increment();
    try (http) {
      GcsExchange ex;
      try {
        ex = new GcsExchange(http);
      } catch (RuntimeException e) {
        http.sendResponseHeaders(400, -1);
        return;
      }
      try {
        route(ex);
      } catch (GcsException e) {
        ex.error(e);
      } catch (RuntimeException e) {
        ex.error(new GcsException(500, "backendError", String.valueOf(e)));
      }
    } catch (IOException | RuntimeException e) {
      // Client went away mid-exchange, or headers were already sent; the exchange is closed either way.
    }
  }

  private void route(GcsExchange ex) throws IOException {
    String method = ex.http.getRequestMethod();
    String path = ex.http.getRequestURI().getRawPath();
    Matcher up = UPLOAD_PATH.matcher(path);
    if (up.matches()) {
      String bucket = PercentCodec.decode(up.group(1), false);
      switch (method) {
        case "POST" -> uploads.post(ex, bucket);
        case "PUT" -> uploads.put(ex);
        case "DELETE" -> uploads.cancel(ex);
        default -> throw new GcsException(405, "methodNotAllowed", method + " " + path);
      }
      return;
    }
    if (path.equals("/storage/v1/b") && method.equals("POST")) {
      String name = GcsJson.MAPPER.readTree(ex.body()).path("name").asText();
      ex.json(200, GcsJson.bucket(store.createBucket(name), ex.base));
      return;
    }
    Matcher m = BUCKET_PATH.matcher(path);
    if (!m.matches()) {
      throw new GcsException(404, "notFound", "Not Found: " + method + " " + path);
    }
    String bucket = PercentCodec.decode(m.group(1), false);
    if (m.group(2) == null) {
      requireMethod(method, "GET");
      ex.json(200, GcsJson.bucket(store.bucket(bucket), ex.base));
    } else if (m.group(3) == null) {
      requireMethod(method, "GET");
      list(ex, bucket);
    } else {
      object(ex, method, bucket, PercentCodec.decode(m.group(3), false));
    }
  }

  private static void requireMethod(String method, String expected) {
    if (!method.equals(expected)) {
      throw new GcsException(405, "methodNotAllowed", "Method " + method + " not allowed here");
    }
  }

  private void object(GcsExchange ex, String method, String bucket, String name) throws IOException {
    switch (method) {
      case "GET" -> {
        GcsObject o = store.get(bucket, name, ex.longParam("generation"));
        ex.preconditions().check(o, true);
        if ("media".equals(ex.param("alt"))) {
          download(ex, o);
        } else {
          ex.json(200, GcsJson.object(o, ex.base));
        }
      }
      case "PATCH", "PUT" -> {
        var body = GcsJson.MAPPER.readTree(ex.body());
        GcsObject current = store.get(bucket, name, null);
        Map<String, String> meta = new LinkedHashMap<>(current.metadata());
        var m = body.get("metadata");
        if (m != null && m.isObject()) {
          m.properties().forEach(e -> {
            if (e.getValue().isNull()) {
              meta.remove(e.getKey());
            } else {
              meta.put(e.getKey(), e.getValue().asText());
            }
          });
        }
        String contentType = body.hasNonNull("contentType") ? body.get("contentType").asText() : null;
        ex.json(200, GcsJson.object(store.updateMetadata(bucket, name, contentType, meta, ex.preconditions()),
            ex.base));
      }
      case "DELETE" -> {
        store.delete(bucket, name, ex.longParam("generation"), ex.preconditions());
        ex.empty(204);
      }
      default -> throw new GcsException(405, "methodNotAllowed", "Method " + method + " not allowed here");
    }
  }

  private void list(GcsExchange ex, String bucket) throws IOException {
    Long max = ex.longParam("maxResults");
    int maxResults = max == null || max <= 0 ? 1000 : (int) Math.min(max, 1000);
    GcsStore.Listing l = store.list(bucket, ex.param("prefix"), ex.param("delimiter"), ex.param("startOffset"),
        ex.param("endOffset"), ex.param("pageToken"), maxResults, "true".equals(ex.param("includeTrailingDelimiter")));
    ex.json(200, GcsJson.listing(l, ex.base));
  }

  private void download(GcsExchange ex, GcsObject o) throws IOException {
    downloads.computeIfAbsent(o.bucket() + "/" + o.name(), k -> new LongAdder()).increment();
    long size = o.size();
    long first = 0;
    long last = size - 1;
    int status = 200;
    String range = ex.header("Range");
    if (range != null && !(size == 0 && range.trim().equals("bytes=0-"))) {
      Matcher m = RANGE.matcher(range.trim());
      if (m.matches() && !(m.group(1).isEmpty() && m.group(2).isEmpty())) {
        if (m.group(1).isEmpty()) { // bytes=-N: the last N bytes
          first = Math.max(0, size - Long.parseLong(m.group(2)));
        } else {
          first = Long.parseLong(m.group(1));
          if (!m.group(2).isEmpty()) {
            last = Math.min(last, Long.parseLong(m.group(2)));
          }
        }
        if (first >= size || first > last) {
          ex.http.getResponseHeaders().set("Content-Range", "bytes */" + size);
          throw new GcsException(416, "requestedRangeNotSatisfiable", "The requested range cannot be satisfied.");
        }
        status = 206;
        ex.http.getResponseHeaders().set("Content-Range", "bytes " + first + "-" + last + "/" + size);
      }
    }
    var h = ex.http.getResponseHeaders();
    h.set("Content-Type", o.contentType());
    h.set("ETag", o.etag());
    h.set("Last-Modified", HTTP_DATE.format(o.updated()));
    h.set("Accept-Ranges", "bytes");
    h.set("x-goog-generation", Long.toString(o.generation()));
    h.set("x-goog-metageneration", Long.toString(o.metageneration()));
    h.set("x-goog-hash", "crc32c=" + o.crc32c() + ",md5=" + o.md5Hash());
    h.set("x-goog-stored-content-length", Long.toString(size));
    h.set("x-goog-stored-content-encoding", "identity");
    h.set("x-goog-storage-class", "STANDARD");
    long length = last - first + 1;
    ex.http.sendResponseHeaders(status, length == 0 ? -1 : length);
    if (length == 0) {
      return;
    }
    try (InputStream in = Files.newInputStream(o.file())) {
      in.skipNBytes(first);
      OutputStream out = ex.http.getResponseBody();
      byte[] buf = new byte[Staging.BUFFER];
      for (long left = length; left > 0; ) {
        int r = in.read(buf, 0, (int) Math.min(buf.length, left));
        if (r < 0) {
          break; // The file shrank under us (replaced generation); the client sees a short body.
        }
        out.write(buf, 0, r);
        left -= r;
      }
    }
  }
}
