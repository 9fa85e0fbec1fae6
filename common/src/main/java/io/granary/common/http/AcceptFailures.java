package io.granary.common.http;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listening channel's handler for a failed {@code accept(2)}: above all EMFILE, a node at its open-file limit.
 * Netty's own answer pauses accepting for a second and logs a stack trace at the tail of the pipeline, once a
 * second for as long as the limit holds. Here the failure is counted ({@code granary_http_accept_failures_total}),
 * logged at most once per {@link #REPORT_EVERY_NANOS} as one line with the count since the last report, and
 * accepting pauses for {@link #PAUSE_MILLIS} (what {@code ServerBootstrapAcceptor} would do: retrying at once would
 * spin, since the pending connection stays in the backlog). Shared by the listening channel only.
 */
@ChannelHandler.Sharable
final class AcceptFailures extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(AcceptFailures.class);
  static final long PAUSE_MILLIS = 1000;
  static final long REPORT_EVERY_NANOS = TimeUnit.SECONDS.toNanos(30);

  private final String nodeId;
  private final EdgeCounters counters;
  private final AtomicLong sinceReport = new AtomicLong();
  private volatile long lastReport = System.nanoTime() - REPORT_EVERY_NANOS;

  AcceptFailures(String nodeId, EdgeCounters counters) {
    this.nodeId = nodeId;
    this.counters = counters;
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    counters.onAcceptFailure();
    long n = sinceReport.incrementAndGet();
    long now = System.nanoTime();
    if (now - lastReport >= REPORT_EVERY_NANOS) {
      lastReport = now;
      sinceReport.addAndGet(-n);
      log.warn("node={} cannot accept connections: {}; accepting pauses {} ms at a time, {} failed accept(s) since "
          + "the last report (granary_http_accept_failures_total)", nodeId, cause.getMessage(), PAUSE_MILLIS, n);
    }
    if (ctx.channel().config().isAutoRead()) {
      ctx.channel().config().setAutoRead(false);
      ctx.channel().eventLoop().schedule(() -> ctx.channel().config().setAutoRead(true), PAUSE_MILLIS,
          TimeUnit.MILLISECONDS);
    }
  }
}
