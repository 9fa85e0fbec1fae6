package io.granary.common.http;

import io.granary.clustermap.ClusterJson;
import io.granary.common.control.ControlClient;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Sends a node's own HTTP server a burst of requests over loopback before it joins the cluster, through the cluster's
 * own client: the classes of the request path on both sides (codec, dispatcher, routing, the cluster signature,
 * error answers, metrics, the HTTP client and JSON) are loaded and initialized, and their code leaves the
 * interpreter, before the first real request waits on it. A target that has just joined is sent its share of the
 * cluster's reads at once; on a fresh JVM, loading and initializing those classes on the event loops held requests
 * for a few hundred milliseconds (bench/rebalance.sh, p99 part, profiled with JFR: class loading from the jar and one
 * loop waiting ~90 ms for another to initialize a class). Answers are not checked: errors (a 404, a 503 before the
 * node holds any metadata) exercise the error path, which is the point.
 */
public final class LoopbackWarmUp {
  private LoopbackWarmUp() {}

  /** What a warm-up did. */
  public record Result(int requests, int failed, long millis) {
  }

  /**
   * GETs each of {@code paths} on {@code baseUrl} {@code rounds} times, {@code inFlight} at once at most; returns when
   * every request has answered or failed, or after {@code maxMillis}.
   */
  public static Result run(ControlClient client, String baseUrl, List<String> paths, int rounds, int inFlight,
      long maxMillis) {
    long start = System.nanoTime();
    long deadline = start + TimeUnit.MILLISECONDS.toNanos(maxMillis);
    readJsonTree();
    Semaphore slots = new Semaphore(inFlight);
    AtomicInteger failed = new AtomicInteger();
    int sent = 0;
    try {
      for (int r = 0; r < rounds && System.nanoTime() < deadline; r++) {
        for (String path : paths) {
          if (!slots.tryAcquire(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
            break;
          }
          sent++;
          CompletableFuture<?> f = client.get(baseUrl + path, Map.class);
          f.whenComplete((v, err) -> {
            if (err != null) {
              failed.incrementAndGet();
            }
            slots.release();
          });
        }
      }
      slots.tryAcquire(inFlight, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return new Result(sent, failed.get(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
  }

  /**
   * Admin request bodies (the primary's metadata pushes, {@link JsonRequestHandler}) are read as JSON trees on the
   * event loop, which the GETs below never do; the first read builds Jackson's tree deserializer under a lock, and a
   * joining target's loop waited 124 ms there for its first metadata push (JFR).
   */
  private static void readJsonTree() {
    try {
      ClusterJson.mapper().readTree("{\"warm-up\":[1,2.5,\"text\",true,null,{\"nested\":{}}]}");
    } catch (IOException e) {
      throw new IllegalStateException("the JSON warm-up document is valid", e);
    }
  }

  /** {@code http://HOST:PORT} of a server bound to {@code host}, a wildcard address reached through loopback. */
  public static String baseUrl(String host, int port) {
    boolean wildcard = host == null || host.isEmpty() || host.equals("0.0.0.0") || host.equals("::")
        || host.equals("[::]");
    String h = wildcard ? "127.0.0.1" : host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    return "http://" + h + ":" + port;
  }
}
