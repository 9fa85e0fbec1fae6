package io.granary.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * An HTTP/1.1 reverse proxy on 127.0.0.1 between a client under test and a real server (S3Proxy, FakeGcsServer).
 * It forwards request heads byte for byte (Host included, so SigV4 signatures stay valid) and streams bodies both
 * ways with keep-alive, recording every request. Faults armed with {@link #inject} apply to the next matching
 * requests: an error status instead of forwarding, a stall before the answer or mid-body, a body cut short after
 * N bytes (connection closed), a byte flipped at an offset of the body, or a header of the answer replaced.
 *
 * <p>SigV4: the aws SDK signs the Host it connects to, here the proxy's {@code 127.0.0.1:PORT}. The head reaches
 * S3Proxy unchanged and S3Proxy verifies against the Host header it received (it does not compare it with its own
 * endpoint), so signed requests, including {@code aws-chunked} streaming uploads, work without any rewriting.
 *
 * <p>Threads: one acceptor, and one thread per client connection (at most {@value #MAX_CONNECTIONS}; more are
 * refused by closing them). A stall sleeps only its own connection's thread. Body offsets of faults count payload
 * bytes (chunk framing excluded). Status faults answer an S3-style XML error, or a GCS JSON error for
 * {@code /storage/}, {@code /upload/} and {@code /download/} paths, with no {@code Retry-After}: the client's
 * own backoff applies.
 */
public final class FaultProxy implements AutoCloseable {
  static final int MAX_CONNECTIONS = 128;

  /** One request that went through: method, path with query, and its Range header (or null). */
  public record Recorded(String method, String pathAndQuery, String range) {
  }

  /** A misbehaviour to apply to matching requests. */
  public sealed interface Fault {
    /** Answer {@code status} (with a small provider-neutral XML/JSON error body) without forwarding. */
    record Status(int status) implements Fault {
    }

    /** Forward, then hold the answer for {@code delay} after {@code afterBodyBytes} body bytes (0: before the head). */
    record Stall(Duration delay, long afterBodyBytes) implements Fault {
    }

    /** Forward, send the head unchanged, then close the connection after {@code afterBodyBytes} body bytes. */
    record Truncate(long afterBodyBytes) implements Fault {
    }

    /** Forward with the byte at body offset {@code offset} inverted (length and headers unchanged). */
    record Corrupt(long offset) implements Fault {
    }

    /** Forward with the answer's header {@code name} (any case) set to {@code value}: a server's wrong claim. */
    record ReplaceHeader(String name, String value) implements Fault {
    }
  }

  /** An injected fault and how many more requests it applies to (negative: unlimited). */
  private record Armed(Predicate<Recorded> match, Fault fault, AtomicInteger remaining) {
    boolean claim(Recorded r) {
      if (!match.test(r)) {
        return false;
      }
      while (true) {
        int left = remaining.get();
        if (left < 0) {
          return true;
        }
        if (left == 0) {
          return false;
        }
        if (remaining.compareAndSet(left, left - 1)) {
          return true;
        }
      }
    }
  }

  private final URI upstream;
  private final ServerSocket listener;
  private final URI endpoint;
  private final ThreadPoolExecutor pool;
  private final Thread acceptor;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private final List<Armed> faults = new CopyOnWriteArrayList<>();
  private final List<Recorded> recorded = new ArrayList<>();
  private volatile boolean closed;

  private FaultProxy(URI upstream) throws IOException {
    if (upstream.getHost() == null || upstream.getPort() < 0) {
      throw new IllegalArgumentException("upstream needs host and port: " + upstream);
    }
    this.upstream = upstream;
    this.listener = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
    this.endpoint = URI.create("http://127.0.0.1:" + listener.getLocalPort());
    AtomicInteger n = new AtomicInteger();
    this.pool = new ThreadPoolExecutor(0, MAX_CONNECTIONS, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
      Thread t = new Thread(r, "fault-proxy-" + listener.getLocalPort() + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    this.acceptor = new Thread(this::acceptLoop, "fault-proxy-accept-" + listener.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** Starts a proxy in front of {@code upstream} on a free loopback port. */
  public static FaultProxy start(URI upstream) throws IOException {
    return new FaultProxy(upstream);
  }

  /** {@code http://127.0.0.1:PORT}. */
  public URI endpoint() {
    return endpoint;
  }

  /**
   * Applies {@code fault} to the next {@code times} requests that match ({@code times < 0}: every matching
   * request until {@link #clearFaults}).
   */
  public void inject(Predicate<Recorded> match, Fault fault, int times) {
    faults.add(new Armed(match, fault, new AtomicInteger(times < 0 ? -1 : times)));
  }

  public void clearFaults() {
    faults.clear();
  }

  /** Every request forwarded or answered so far, in arrival order. */
  public List<Recorded> requests() {
    synchronized (recorded) {
      return List.copyOf(recorded);
    }
  }

  /** Requests so far that match. */
  public long count(Predicate<Recorded> match) {
    return requests().stream().filter(match).count();
  }

  public void resetCounts() {
    synchronized (recorded) {
      recorded.clear();
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      listener.close();
    } catch (IOException ignored) {
      // Closing anyway.
    }
    for (Socket s : sockets) {
      try {
        s.close();
      } catch (IOException ignored) {
        // Closing anyway.
      }
    }
    pool.shutdownNow();
    try {
      acceptor.join(2_000);
      pool.awaitTermination(3, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Records a request and claims the first armed fault that matches it (or null). */
  Fault record(Recorded r) {
    synchronized (recorded) {
      recorded.add(r);
    }
    for (Armed a : faults) {
      if (a.claim(r)) {
        return a.fault();
      }
    }
    return null;
  }

  void track(Socket s) throws IOException {
    sockets.add(s);
    if (closed) {
      s.close();
      throw new IOException("proxy closed");
    }
  }

  void forget(Socket s) {
    sockets.remove(s);
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        return; // Listener closed.
      }
      try {
        track(client);
        pool.execute(new ProxyConnection(this, client, upstream));
      } catch (IOException | RejectedExecutionException e) {
        forget(client);
        try {
          client.close();
        } catch (IOException ignored) {
          // Refused anyway.
        }
      }
    }
  }

  static String reason(int status) {
    return switch (status) {
      case 400 -> "Bad Request";
      case 403 -> "Forbidden";
      case 404 -> "Not Found";
      case 408 -> "Request Timeout";
      case 429 -> "Too Many Requests";
      case 500 -> "Internal Server Error";
      case 502 -> "Bad Gateway";
      case 503 -> "Service Unavailable";
      case 504 -> "Gateway Timeout";
      default -> "Error";
    };
  }

  static String s3Code(int status) {
    return switch (status) {
      case 400 -> "BadRequest";
      case 403 -> "AccessDenied";
      case 404 -> "NoSuchKey";
      case 429, 503 -> "ServiceUnavailable";
      case 500 -> "InternalError";
      default -> "Error" + status;
    };
  }

  static String gcsReason(int status) {
    return switch (status) {
      case 400 -> "invalid";
      case 403 -> "forbidden";
      case 404 -> "notFound";
      case 429 -> "rateLimitExceeded";
      default -> status >= 500 ? "backendError" : "error";
    };
  }
}
