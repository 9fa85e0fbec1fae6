package io.granary.target.rebalance;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.Node;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.api.GranaryHeaders;
import io.granary.common.auth.ClusterSigner;
import io.granary.common.error.ErrorResponse;
import io.granary.common.http.BorrowedFileRegion;
import io.granary.common.http.client.UpstreamListener;
import io.granary.common.http.client.UpstreamPool;
import io.granary.target.meta.ObjectMetaCodec;
import io.granary.target.storage.Relocation;
import io.granary.target.storage.StoredObject;
import io.granary.target.storage.WriteCondition;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Sends one object to another target over a pooled keep-alive connection: the body starts with the object's whole
 * record, and the content leaves zero-copy from the object's file (sendfile) in regions the bandwidth cap admits one
 * at a time (at most two in flight, so a slow receiver holds the sender back), and the answer says what the receiver
 * did with the copy. A send holds a few small objects in memory whatever the object's size.
 *
 * <p>Threads: {@link #send} blocks its caller (a rebalance stream or a push worker, never an event loop) until the
 * receiver answers; the connection's event loop writes the bytes and reads the answer.
 */
final class ObjectSender {
  private static final ObjectMapper JSON = ClusterJson.mapper();
  private static final Duration CONNECT_WAIT = Duration.ofSeconds(15);
  /** Per region written, and for the answer after the last byte (the receiver fsyncs and commits first). */
  private static final Duration WRITE_WAIT = Duration.ofSeconds(120);
  private static final int MAX_ANSWER = 64 * 1024;

  private final UpstreamPool pool;
  private final SendLoops loops;
  private final ClusterSigner signer; // null without a cluster secret

  ObjectSender(UpstreamPool pool, SendLoops loops, ClusterSigner signer) {
    this.pool = pool;
    this.loops = loops;
    this.signer = signer;
  }

  /**
   * Sends {@code obj} (the object {@code name} of {@code bucket}, opened by the caller, who closes it) to {@code to}.
   *
   * @param atime the object's access time to carry along, epoch ms (0: none)
   * @param mapVersion the map version {@code to} was chosen by: a receiver holding an older one waits for it
   * @param foreground whether a client waits for this copy (the receiver commits it ahead of others)
   * @return what the receiver did with the copy, and whether it owns the object
   */
  Receipt send(BucketProps bucket, String name, StoredObject obj, long atime, Node to, BandwidthCap cap,
      long mapVersion, boolean foreground) throws TransferException, InterruptedException {
    return send(bucket, name, obj, atime, to, cap, mapVersion, foreground, WriteCondition.NONE);
  }

  /**
   * {@link #send(BucketProps, String, StoredObject, long, Node, BandwidthCap, long, boolean)}, to be committed only
   * if {@code condition} holds for the receiver's copy (sent as {@code If-Match} / {@code If-None-Match}; a refusal
   * is a {@link TransferException} with the receiver's status, 412 or 404).
   */
  Receipt send(BucketProps bucket, String name, StoredObject obj, long atime, Node to, BandwidthCap cap,
      long mapVersion, boolean foreground, WriteCondition condition) throws TransferException, InterruptedException {
    String uri = ObjectTransport.path(ObjectTransport.OBJECTS, bucket, name) + "&" + ObjectTransport.BUCKET_ID + "="
        + bucket.id();
    byte[] record = ObjectMetaCodec.encode(obj.meta());
    HttpHeaders h = new DefaultHttpHeaders();
    h.set(ObjectTransport.META_LENGTH_HEADER, record.length);
    h.set(ObjectTransport.ATIME_HEADER, atime);
    if (foreground) {
      h.set(ObjectTransport.PRIORITY_HEADER, ObjectTransport.FOREGROUND);
    }
    if (condition.ifNoneMatchAny()) {
      h.set(HttpHeaderNames.IF_NONE_MATCH, "*");
    } else if (condition.ifMatch() != null) {
      String etag = condition.ifMatch();
      h.set(HttpHeaderNames.IF_MATCH, etag.equals("*") ? etag : "\"" + etag + "\"");
    }
    Reply r = put(to, uri, h, record, obj.channel(), obj.meta().size(), cap, mapVersion);
    if (r.status() != 200) {
      throw TransferException.answered(r.status(), "target " + to.id() + " refused " + bucket.bucket() + "/" + name
          + ": " + r.status() + " " + r.error());
    }
    return parse(r.body());
  }

  /**
   * PUTs {@code record} then {@code size} bytes of {@code file} (from position 0, zero-copy) to {@code uri} (path
   * and query) on {@code to}, signed, with {@code extra} headers; the receiver's answer, whatever its status. The
   * connection goes back to the pool after a 200.
   */
  Reply put(Node to, String uri, HttpHeaders extra, byte[] record, FileChannel file, long size, BandwidthCap cap,
      long mapVersion) throws TransferException, InterruptedException {
    HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.PUT, uri);
    URI target = URI.create(to.url());
    head.headers().set(HttpHeaderNames.HOST, target.getHost() + ":" + target.getPort());
    head.headers().add(extra);
    boolean foreground = ObjectTransport.FOREGROUND.equals(extra.get(ObjectTransport.PRIORITY_HEADER));
    head.headers().set(GranaryHeaders.MAP_VERSION, mapVersion);
    HttpUtil.setContentLength(head, record.length + size);
    if (signer != null) {
      signer.signHeaders("PUT", uri, head.headers());
    }
    Answer answer = new Answer();
    Future<Channel> acquired = pool.acquire(loops.forCopy(foreground).next(),
        new InetSocketAddress(target.getHost(), target.getPort()), answer);
    if (!acquired.await(CONNECT_WAIT.toMillis()) || !acquired.isSuccess()) {
      acquired.addListener(f -> {
        if (f.isSuccess()) {
          pool.release((Channel) f.getNow(), true);
        }
      });
      throw TransferException.unreachable("cannot connect to target " + to.id() + " at " + to.url(),
          acquired.cause());
    }
    Channel ch = acquired.getNow();
    boolean reusable = false;
    try {
      ch.write(head);
      if (record.length > 0) {
        ch.write(new DefaultHttpContent(Unpooled.wrappedBuffer(record)));
      }
      ChannelFuture previous = null;
      for (long pos = 0; pos < size && !answer.reply.isDone(); ) {
        long n = cap.region(size - pos);
        cap.acquire(n);
        ChannelFuture f = ch.writeAndFlush(new BorrowedFileRegion(file, pos, n));
        if (previous != null && !written(previous)) {
          break; // the connection failed, or the receiver answered early and closed it
        }
        previous = f;
        pos += n;
      }
      ch.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
      Reply r = answer.reply.get(WRITE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      reusable = r.status() == 200;
      return r;
    } catch (ExecutionException e) {
      throw TransferException.unreachable("sending " + uri + " to target " + to.id() + " failed: " + e.getCause(),
          e.getCause());
    } catch (TimeoutException e) {
      throw TransferException.unreachable("target " + to.id() + " did not answer for " + uri + " within "
          + WRITE_WAIT.toSeconds() + " s", e);
    } finally {
      answer.detach(ch, reusable);
    }
  }

  private static boolean written(ChannelFuture f) throws InterruptedException {
    return f.await(WRITE_WAIT.toMillis()) && f.isSuccess();
  }

  /** What the receiver did with a copy, and whether it owns the object (see {@link ObjectTransport.Answer}). */
  record Receipt(Relocation.Outcome outcome, boolean owner) {
  }

  private static Receipt parse(byte[] body) throws TransferException {
    try {
      ObjectTransport.Answer a = JSON.readValue(body, ObjectTransport.Answer.class);
      return new Receipt(Relocation.Outcome.valueOf(a.outcome().toUpperCase(Locale.ROOT)), a.owner());
    } catch (IOException | RuntimeException e) {
      throw TransferException.answered(500, "undecodable answer: " + new String(body, StandardCharsets.UTF_8));
    }
  }

  /** The receiver's answer: its status and (small) body. */
  record Reply(int status, byte[] body) {
    String error() {
      try {
        ErrorResponse e = JSON.readValue(body, ErrorResponse.class);
        return e.code() + ": " + e.message();
      } catch (IOException | RuntimeException ex) {
        return new String(body, StandardCharsets.UTF_8);
      }
    }
  }

  /** Collects the answer on the connection's event loop. */
  private final class Answer implements UpstreamListener {
    final CompletableFuture<Reply> reply = new CompletableFuture<>();
    private int status;
    private ByteBuf body; // event loop only
    private boolean taken; // the pool has taken the connection back (it failed); event loop only

    @Override
    public void onResponse(HttpResponse head) {
      status = head.status().code();
      body = Unpooled.buffer(256);
    }

    @Override
    public void onContent(HttpContent content) {
      try {
        if (body != null && body.readableBytes() + content.content().readableBytes() <= MAX_ANSWER) {
          body.writeBytes(content.content());
        }
        if (content instanceof LastHttpContent && body != null) {
          byte[] b = new byte[body.readableBytes()];
          body.readBytes(b);
          body.release();
          body = null;
          reply.complete(new Reply(status, b));
        }
      } finally {
        content.release();
      }
    }

    @Override
    public void onWritabilityChanged(boolean writable) {
    }

    @Override
    public void onFailure(Throwable cause) {
      taken = true; // the pool takes a failed connection back itself
      releaseBody();
      reply.completeExceptionally(cause);
    }

    /** Returns the connection to the pool (or closes it), once this exchange is over. Any thread. */
    void detach(Channel ch, boolean reusable) {
      ch.eventLoop().execute(() -> {
        releaseBody();
        if (taken) {
          return;
        }
        if (!reply.isDone()) {
          reply.completeExceptionally(new IOException("abandoned"));
        }
        pool.release(ch, reusable && !reply.isCompletedExceptionally());
      });
    }

    private void releaseBody() {
      if (body != null) {
        body.release();
        body = null;
      }
    }
  }
}
