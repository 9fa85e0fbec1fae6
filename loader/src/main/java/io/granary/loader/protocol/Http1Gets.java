package io.granary.loader.protocol;

import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The loader's GETs: blocking HTTP/1.1 over keep-alive connections of each worker thread's own, one per server,
 * following redirects. What a load generator must be, cheap per request and per byte: no per-request threads or
 * queues, the body read into one direct buffer per connection, and handed to the heap only when the caller reads it
 * (a discarded body is {@link InputStream#skip skipped}). The JDK's HttpClient, which the loader used before, spent
 * 2.65–3.5 CPU-s per GiB of 1 MiB objects, about 8× a Go loader (issue 21).
 *
 * <p>Written here rather than taken from a library: Apache HttpClient's classic API and the JDK's copy every byte
 * through heap arrays, and Netty would hand each body across threads; the protocol needed (GET, Content-Length or
 * chunked bodies, redirects) is small.
 *
 * <p>Thread-safe: each thread has its connections; {@link #close} closes every thread's. One watchdog thread ends
 * reads and writes that wait longer than the read timeout.
 */
final class Http1Gets implements AutoCloseable {
  private static final int MAX_HOPS = 3;

  /** A response: its head and its body, which the caller closes (handing the connection back). */
  record Response(ResponseHead head, InputStream body) { }

  private final Duration connectTimeout;
  private final long readTimeoutNanos;
  private final ScheduledExecutorService watchdog;
  private final ThreadLocal<Map<String, Http1Connection>> idle = ThreadLocal.withInitial(HashMap::new);
  private final Set<Http1Connection> all = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  Http1Gets(Duration connectTimeout, Duration readTimeout) {
    this.connectTimeout = connectTimeout;
    this.readTimeoutNanos = readTimeout.toNanos();
    long period = Math.max(10, Math.min(1000, readTimeout.toMillis() / 10));
    this.watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "load-get-watchdog");
      t.setDaemon(true);
      return t;
    });
    watchdog.scheduleWithFixedDelay(this::timeOutStalled, period, period, TimeUnit.MILLISECONDS);
  }

  /** Closes each connection whose read or write has waited longer than the read timeout. */
  private void timeOutStalled() {
    long now = System.nanoTime();
    for (Http1Connection c : all) {
      long since = c.stalledSince();
      if (since != 0 && now - since > readTimeoutNanos) {
        c.timeOut();
      }
    }
  }

  /**
   * GETs {@code uri}, following up to three 301/302/303/307/308 hops; the answer is the first that is not a redirect.
   *
   * @param range a {@code Range} header value, or null
   */
  Response get(URI uri, String range) throws IOException {
    return get(uri, range, Map.of());
  }

  /**
   * As {@link #get(URI, String)}, with more request headers (e.g. a signature); they are sent on redirects only to the
   * same server.
   */
  Response get(URI uri, String range, Map<String, String> headers) throws IOException {
    URI u = uri;
    for (int hop = 0; ; hop++) {
      boolean sameServer = u.getRawAuthority().equals(uri.getRawAuthority());
      Response r = once(u, range, sameServer ? headers : Map.of());
      int s = r.head().status();
      String loc = r.head().location();
      if ((s == 301 || s == 302 || s == 303 || s == 307 || s == 308) && loc != null && hop < MAX_HOPS) {
        try (InputStream body = r.body()) {
          body.skip(Long.MAX_VALUE);
        }
        u = u.resolve(loc);
        continue;
      }
      return r;
    }
  }

  private Response once(URI u, String range, Map<String, String> headers) throws IOException {
    if (!"http".equals(u.getScheme())) {
      throw new IOException("only http:// URLs are supported by this client, not " + u);
    }
    int port = u.getPort() < 0 ? 80 : u.getPort();
    String authority = u.getHost() + ":" + port;
    String path = u.getRawPath() == null || u.getRawPath().isEmpty() ? "/" : u.getRawPath();
    String target = u.getRawQuery() == null ? path : path + "?" + u.getRawQuery();
    StringBuilder head = new StringBuilder(256 + 128 * headers.size()).append("GET ").append(target)
        .append(" HTTP/1.1\r\nHost: ").append(u.getRawAuthority()).append("\r\n");
    if (range != null) {
      head.append("Range: ").append(range).append("\r\n");
    }
    headers.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
    head.append("\r\n");
    Http1Connection c = idle.get().remove(authority);
    if (c != null) {
      try {
        return exchange(c, head.toString());
      } catch (SocketTimeoutException e) {
        throw e;
      } catch (IOException stale) {
        // The server closed the idle connection before our request reached it (or as it did): a GET is safe to send
        // again, once, on a fresh connection.
      }
    }
    return exchange(connect(u.getHost(), port), head.toString());
  }

  private Response exchange(Http1Connection c, String head) throws IOException {
    try {
      c.send(head);
      ResponseHead h = c.readHead();
      return new Response(h, new BodyStream(c, h, this::release));
    } catch (IOException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  private Http1Connection connect(String host, int port) throws IOException {
    if (closed) {
      throw new IOException("client closed");
    }
    Http1Connection c = Http1Connection.open(host, port, connectTimeout, all::remove);
    all.add(c);
    if (closed) {
      c.close();
      throw new IOException("client closed");
    }
    return c;
  }

  /** A connection whose body ended: kept for this thread's next request to its server. */
  private void release(Http1Connection c) {
    Http1Connection previous = idle.get().put(c.authority(), c);
    if (previous != null && previous != c) {
      previous.close();
    }
  }

  @Override
  public void close() {
    closed = true;
    watchdog.shutdownNow();
    for (Http1Connection c : all) {
      c.close();
    }
  }
}
