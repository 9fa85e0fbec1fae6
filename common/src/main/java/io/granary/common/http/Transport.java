package io.granary.common.http;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollMode;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.ThreadFactory;

/** Native epoll where the platform has it (zero-copy sendfile, fewer syscalls), NIO otherwise. */
public enum Transport {
  EPOLL,
  NIO;

  /** The best transport here; {@code -Dgranary.transport=nio} forces NIO. */
  public static Transport best() {
    if ("nio".equalsIgnoreCase(System.getProperty("granary.transport"))) {
      return NIO;
    }
    return Epoll.isAvailable() ? EPOLL : NIO;
  }

  public EventLoopGroup newGroup(int threads, String name) {
    return newGroup(threads, new DefaultThreadFactory(name, true));
  }

  /** Event loops on threads from {@code threads} (for example {@link io.granary.common.exec.Background#threads}). */
  public EventLoopGroup newGroup(int threads, ThreadFactory tf) {
    return this == EPOLL ? new EpollEventLoopGroup(threads, tf) : new NioEventLoopGroup(threads, tf);
  }

  public Class<? extends ServerChannel> serverChannel() {
    return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
  }

  public Class<? extends SocketChannel> clientChannel() {
    return this == EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
  }

  /**
   * Makes the connections a bootstrap creates able to splice(2) bytes to each other in the kernel, where this
   * transport can: Netty splices only between level-triggered epoll channels. Edge-triggered stays the default
   * elsewhere (one fewer epoll wakeup per read burst).
   */
  public void spliceable(ServerBootstrap b) {
    if (this == EPOLL) {
      b.childOption(EpollChannelOption.EPOLL_MODE, EpollMode.LEVEL_TRIGGERED);
    }
  }

  /** {@link #spliceable(ServerBootstrap)} for client connections. */
  public void spliceable(Bootstrap b) {
    if (this == EPOLL) {
      b.option(EpollChannelOption.EPOLL_MODE, EpollMode.LEVEL_TRIGGERED);
    }
  }
}
