package io.granary.common.http;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

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
    DefaultThreadFactory tf = new DefaultThreadFactory(name, true);
    return this == EPOLL ? new EpollEventLoopGroup(threads, tf) : new NioEventLoopGroup(threads, tf);
  }

  public Class<? extends ServerChannel> serverChannel() {
    return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
  }

  public Class<? extends SocketChannel> clientChannel() {
    return this == EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
  }
}
