package io.granary.target.coldget;

import io.granary.backend.Backend;
import io.granary.backend.RemoteObject;
import io.granary.backend.RemoteRead;
import io.granary.common.http.HttpExchange;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A range of a cold object that the whole-object fetch has not reached yet, read straight from the remote and
 * passed through to the client (not cached; the fetch caches the object meanwhile). One buffer in flight at a
 * time: the remote is read only as fast as the client takes the bytes. Runs on the cold pool.
 */
final class RangedRead {
  private static final int CHUNK = 256 << 10;
  private static final long WRITE_TIMEOUT_SECONDS = 60;

  private RangedRead() {}

  static void serve(HttpExchange ex, HttpResponse head, Backend backend, String bucket, RemoteObject object,
      long offset, long length) throws IOException {
    RemoteRead read = backend.read(bucket, object.key(), offset, length, object);
    CompletableFuture<Boolean> started = new CompletableFuture<>();
    ex.onLoop(() -> started.complete(ex.startStream(head)));
    try {
      if (!started.join()) {
        return;
      }
      long sent = 0;
      while (sent < length) {
        ByteBuf buf = ex.alloc().directBuffer((int) Math.min(CHUNK, length - sent));
        int n;
        try {
          ByteBuffer nio = buf.nioBuffer(0, buf.capacity());
          n = read.read(nio);
          if (n < 0) {
            throw new IOException("remote range ended early at " + (offset + sent));
          }
          buf.writerIndex(n);
        } catch (IOException | RuntimeException e) {
          buf.release();
          throw e;
        }
        sent += n;
        CompletableFuture<ChannelFuture> write = new CompletableFuture<>();
        ex.onLoop(() -> {
          write.complete(ex.streamContent(new DefaultHttpContent(buf)));
          ex.flushStream();
        });
        ChannelFuture done = write.join();
        if (!done.awaitUninterruptibly(WRITE_TIMEOUT_SECONDS, TimeUnit.SECONDS) || !done.isSuccess()) {
          ex.abortConnection();
          return;
        }
      }
      ex.onLoop(() -> ex.endStream(LastHttpContent.EMPTY_LAST_CONTENT));
    } catch (IOException | RuntimeException e) {
      ex.abortConnection(); // the head is out: a short body is the only way to say it failed
    } finally {
      read.close();
    }
  }
}
