package io.granary.common.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A deadline for receiving a request head, against slowloris (a head sent a byte at a time never lets a connection
 * go idle, so the idle timeout alone would hold it for hours). Pipeline position: first, before the codec, so it
 * sees bytes before the decoder has made anything of them; {@link HttpDispatcher} tells it when a head has arrived
 * ({@link #headArrived}) and when the connection waits for the next one ({@link #awaitNext}).
 *
 * <p>The clock of a new connection's first head starts at the accept; a later head's starts with its first byte
 * (between requests a kept-alive connection is governed by the idle timeout). When the deadline passes, a
 * connection that sent nothing is closed silently (there is no request to answer), and one with part of a head is
 * handed to the dispatcher as {@link #EXPIRED}, which answers 408 and closes.
 *
 * <p>The timer is armed only when a read leaves a head incomplete: a head that arrives in one read, the usual
 * case, schedules nothing. Event loop only.
 */
final class HeadTimeout extends ChannelInboundHandlerAdapter {
  /** User event: part of a request head arrived, the rest did not in time. */
  static final Object EXPIRED = new Object() {
    @Override
    public String toString() {
      return "HeadTimeout.EXPIRED";
    }
  };

  private final long timeoutNanos;
  private final EdgeCounters counters;
  private ChannelHandlerContext ctx;
  private boolean awaiting = true;  // no head since the connection opened or the last exchange ended
  private boolean started;          // bytes of the awaited head have arrived
  private long heads;               // heads arrived so far: tells a read that completed a head from one that did not
  private ScheduledFuture<?> deadline;

  HeadTimeout(long timeoutNanos, EdgeCounters counters) {
    this.timeoutNanos = timeoutNanos;
    this.counters = counters;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    if (ctx.channel().isActive()) {
      arm();
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    if (deadline == null && awaiting) {
      arm();
    }
    super.channelActive(ctx);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    boolean begins = awaiting && msg instanceof ByteBuf b && b.isReadable();
    if (begins) {
      started = true;
    }
    long before = heads;
    ctx.fireChannelRead(msg);
    // No head came of these bytes once the decoder has seen them: it is incomplete, and its clock runs from now.
    // (A read that completed a head, whose exchange may even be over already, arms nothing.)
    if (begins && heads == before && awaiting && deadline == null) {
      arm();
    }
  }

  /** The awaited head was decoded (or refused by the decoder): its deadline is off. */
  void headArrived() {
    heads++;
    awaiting = false;
    started = false;
    cancel();
  }

  /** The connection's exchange is over; the next head's clock starts with its first byte. */
  void awaitNext() {
    awaiting = true;
    started = false;
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    cancel();
    super.channelInactive(ctx);
  }

  private void arm() {
    deadline = ctx.executor().schedule(this::expire, timeoutNanos, TimeUnit.NANOSECONDS);
  }

  private void cancel() {
    if (deadline != null) {
      deadline.cancel(false);
      deadline = null;
    }
  }

  private void expire() {
    deadline = null;
    if (!awaiting || !ctx.channel().isActive()) {
      return;
    }
    counters.onHeadTimeout();
    if (started) {
      ctx.fireUserEventTriggered(EXPIRED);
    } else {
      ctx.close(); // nothing asked, nothing to answer
    }
  }
}
