package io.granary.common.http.relay;

import io.netty.channel.Channel;
import io.netty.channel.epoll.AbstractEpollStreamChannel;
import io.netty.channel.epoll.EpollMode;
import io.netty.channel.epoll.EpollSocketChannel;
import java.util.function.Consumer;

/**
 * Moves a known number of body bytes from a target connection to a client connection with splice(2): through a
 * kernel pipe, never copied to user space. Netty queues the spliced bytes behind what is already written to the
 * client (the response head), and stops reading the target while the client cannot take more, so the splice has
 * the back-pressure of the buffered relay and holds at most a pipe's worth of bytes.
 *
 * <p>Possible only between epoll channels in level-triggered mode on one event loop (see
 * {@code Transport.spliceable}); the relay falls back to buffers otherwise.
 */
final class BodySplice {
  /** {@code -Dgranary.relay.splice=false} relays every body through buffers (to compare, or to rule splice out). */
  static final boolean ENABLED = !"false".equalsIgnoreCase(System.getProperty("granary.relay.splice"));
  /** The most one Netty splice moves: {@code Integer.MAX_VALUE} would mean "until cancelled". */
  private static final int MAX_STEP = 1 << 30;

  private BodySplice() {}

  /** Whether bytes can be spliced from {@code from} to {@code to}. */
  static boolean possible(Channel from, Channel to) {
    return ENABLED && from instanceof EpollSocketChannel f && to instanceof EpollSocketChannel t
        && f.config().getEpollMode() == EpollMode.LEVEL_TRIGGERED
        && t.config().getEpollMode() == EpollMode.LEVEL_TRIGGERED
        && f.eventLoop() == t.eventLoop();
  }

  /**
   * Splices exactly {@code length} bytes; then calls {@code done} with null, or with the cause if either
   * connection failed first. Event loop only; {@link #possible} must hold.
   */
  static void splice(Channel from, Channel to, long length, Consumer<Throwable> done) {
    int step = (int) Math.min(length, MAX_STEP);
    ((AbstractEpollStreamChannel) from).spliceTo((AbstractEpollStreamChannel) to, step).addListener(f -> {
      if (!f.isSuccess()) {
        done.accept(f.cause());
      } else if (length > step) {
        splice(from, to, length - step, done);
      } else {
        done.accept(null);
      }
    });
  }
}
