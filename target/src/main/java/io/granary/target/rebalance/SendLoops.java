package io.granary.target.rebalance;

import io.granary.common.exec.Background;
import io.granary.common.http.Transport;
import io.netty.channel.EventLoopGroup;
import java.util.concurrent.TimeUnit;

/**
 * The event loops copies leave on, apart from the loops serving clients (sendfile of a file not in the page cache
 * blocks its loop on the disk; on the client loops that stalled GETs, bench/rebalance.sh): the rebalance's own
 * copies on background threads ({@link Background}), and copies a client waits for (get-from-neighbor pushes) on a
 * loop at normal priority, so that they never queue behind the rebalance or yield to it.
 *
 * @param background where the rebalance's copies, hand-offs and slices are sent from
 * @param urgent where copies a client waits for are sent from
 */
public record SendLoops(EventLoopGroup background, EventLoopGroup urgent) {
  /** Loops for target {@code id}: {@code threads} background ones and one urgent. */
  public static SendLoops create(Transport net, int threads, String id) {
    return new SendLoops(net.newGroup(threads, Background.threads("send-" + id)), net.newGroup(1, "send-urgent-" + id));
  }

  /** The loops for a copy. */
  EventLoopGroup forCopy(boolean foreground) {
    return foreground ? urgent : background;
  }

  /** Shuts both down, waiting up to {@code seconds} for each. */
  void shutdown(long seconds) throws InterruptedException {
    background.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(seconds, TimeUnit.SECONDS);
    if (urgent != background) {
      urgent.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(seconds, TimeUnit.SECONDS);
    }
  }
}
