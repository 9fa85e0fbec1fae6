package io.granary.common.http;

import io.netty.channel.Channel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.time.Duration;

/**
 * A listener's open connections, kept so that a graceful stop can reach each of them: once {@link #drain} has
 * begun, every connection, those accepted while it runs included, is told {@link HttpDispatcher#DRAIN} on its
 * event loop. Thread-safe.
 */
final class OpenConnections {
  private final ChannelGroup channels;
  private volatile boolean draining;

  OpenConnections(String nodeId) {
    channels = new DefaultChannelGroup("http-" + nodeId, GlobalEventExecutor.INSTANCE);
  }

  /** Keeps {@code ch} until it closes; call once its pipeline is built. */
  void add(Channel ch) {
    channels.add(ch);
    // Checked after the add: either this sees the flag, or drain() sees the channel (or both; DRAIN is idempotent).
    if (draining) {
      ch.pipeline().fireUserEventTriggered(HttpDispatcher.DRAIN);
    }
  }

  /** Tells every connection to finish its request and close, and waits up to {@code grace}; the ones still open. */
  int drain(Duration grace) {
    draining = true;
    for (Channel c : channels) {
      c.pipeline().fireUserEventTriggered(HttpDispatcher.DRAIN);
    }
    channels.newCloseFuture().awaitUninterruptibly(Math.max(0, grace.toMillis()));
    return channels.size();
  }
}
