package io.granary.common.http.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.granary.common.http.Transport;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.util.concurrent.Future;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Closing the pool when some of its connections live on event loops that have already shut down. */
class UpstreamPoolTest {
  private static final UpstreamListener IGNORED = new UpstreamListener() {
    @Override
    public void onResponse(HttpResponse head) {
    }

    @Override
    public void onContent(HttpContent content) {
      content.release();
    }

    @Override
    public void onWritabilityChanged(boolean writable) {
    }

    @Override
    public void onFailure(Throwable cause) {
    }
  };

  @Test
  void close_afterALoopGroupOfItsConnectionsShutDown_closesTheRestWithoutFailing() throws Exception {
    Transport net = Transport.best();
    EventLoopGroup ended = net.newGroup(1, "ended");
    EventLoopGroup running = net.newGroup(1, "running");
    try (ServerSocket server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
      InetSocketAddress address = new InetSocketAddress(server.getInetAddress(), server.getLocalPort());
      UpstreamPool pool = new UpstreamPool(net, 4, 4);
      Channel onEnded = connect(pool, ended, address);
      Channel onRunning = connect(pool, running, address);
      pool.release(onEnded, true);
      pool.release(onRunning, true);
      assertThat(ended.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS)).isTrue();

      assertThatCode(pool::close).doesNotThrowAnyException();
      assertThat(onEnded.closeFuture().await(10, TimeUnit.SECONDS)).as("closed as its loop ended").isTrue();
      assertThat(onRunning.closeFuture().await(10, TimeUnit.SECONDS)).as("closed by the pool").isTrue();
    } finally {
      running.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
    }
  }

  private static Channel connect(UpstreamPool pool, EventLoopGroup group, InetSocketAddress address)
      throws InterruptedException {
    Future<Channel> f = pool.acquire(group.next(), address, IGNORED);
    assertThat(f.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(f.isSuccess()).as(String.valueOf(f.cause())).isTrue();
    return f.getNow();
  }
}
