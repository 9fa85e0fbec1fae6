package io.granary.common.http;

import io.netty.channel.Channel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts one listener's open connections and decides, as each is accepted, how it is served. Up to {@code max}
 * connections are served as usual. The next {@code reserve} are admitted on the reserve: their requests are served
 * only when another node of the cluster signed them (so clients cannot starve the cluster's own traffic), and any
 * other is answered 503 and the connection closed. Beyond the reserve a connection is closed at once, unanswered:
 * the node cannot afford to hold it even long enough to read a request.
 *
 * <p>Thread-safe: connections are admitted on their event loops and counted down when they close. Refusals are
 * counted in {@link EdgeCounters} and logged at most once a minute, so a flood of connections is one log line.
 */
final class ConnectionCap {
  private static final Logger log = LoggerFactory.getLogger(ConnectionCap.class);
  private static final long REPORT_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

  enum Admission { SERVE, RESERVE, REFUSE }

  private final String nodeId;
  private final int max;
  private final int reserve;
  private final EdgeCounters counters;
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicLong lastReport = new AtomicLong(System.nanoTime() - REPORT_EVERY_NANOS);
  private final AtomicLong refusedSinceReport = new AtomicLong();

  ConnectionCap(String nodeId, int max, int reserve, EdgeCounters counters) {
    this.nodeId = nodeId;
    this.max = max;
    this.reserve = reserve;
    this.counters = counters;
  }

  /** Counts {@code ch} until it closes, unless it is refused (the caller then closes it). */
  Admission admit(Channel ch) {
    int n = open.incrementAndGet();
    if (n > max + reserve) {
      open.decrementAndGet();
      counters.onRefusedClosed();
      refused();
      return Admission.REFUSE;
    }
    ch.closeFuture().addListener(f -> open.decrementAndGet());
    return n > max ? Admission.RESERVE : Admission.SERVE;
  }

  /** Connections open now, reserve included. */
  int open() {
    return open.get();
  }

  /** Tells the log, at most once a minute, that refusals happen; called for both kinds of refusal. */
  void refused() {
    refusedSinceReport.incrementAndGet();
    long last = lastReport.get();
    long now = System.nanoTime();
    if (now - last >= REPORT_EVERY_NANOS && lastReport.compareAndSet(last, now)) {
      log.warn("node={} connection cap reached: open={} max={} reserve={} (for cluster-signed requests); "
          + "refused={} since the last report (see granary_http_connections_refused_total)", nodeId, open.get(), max,
          reserve, refusedSinceReport.getAndSet(0));
    }
  }
}
