package io.granary.target.coldget;

import io.granary.backend.BackendException;
import io.granary.backend.PlainHttpGet;
import io.granary.backend.PlainHttpReads;
import io.granary.common.http.client.UpstreamListener;
import io.granary.common.http.client.UpstreamPool;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Sends one {@link PlainHttpGet} on a pooled connection of the caller's event loop and completes, on that loop, with
 * a {@link LoopFedRead} once a 2xx head and the first body bytes (or the end of an empty body) arrived. A non-2xx
 * answer completes with the backend's verdict on it (a {@link BackendException}); a failure before any answer (no
 * connection, reset, silence for the read timeout) with a {@link NoAnswer}, after which the caller may try again its
 * blocking way, which retries.
 */
final class LoopGet implements UpstreamListener {
  /** No answer came: nothing is known about the object, and a retry may well succeed. */
  static final class NoAnswer extends IOException {
    NoAnswer(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private final PlainHttpReads backend;
  private final PlainHttpGet get;
  private final UpstreamPool pool;
  private final CompletableFuture<LoopFedRead> answered = new CompletableFuture<>();
  private Channel channel;
  private ScheduledFuture<?> timeout;
  private LoopFedRead body; // after a 2xx head
  private int errorStatus; // after a non-2xx head
  private StringBuilder errorBody;

  private LoopGet(PlainHttpReads backend, PlainHttpGet get, UpstreamPool pool) {
    this.backend = backend;
    this.get = get;
    this.pool = pool;
  }

  /** Sends {@code get} to {@code address} from {@code loop}; the future completes on {@code loop}. */
  static CompletableFuture<LoopFedRead> send(UpstreamPool pool, EventLoop loop, InetSocketAddress address,
      PlainHttpReads backend, PlainHttpGet get) {
    LoopGet exchange = new LoopGet(backend, get, pool);
    pool.acquire(loop, address, exchange).addListener(f -> {
      if (f.isSuccess()) {
        exchange.start((Channel) f.getNow());
      } else {
        exchange.answered.completeExceptionally(new NoAnswer(get.what() + ": no connection to " + address,
            f.cause()));
      }
    });
    return exchange.answered;
  }

  private void start(Channel ch) {
    channel = ch;
    FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, get.target(),
        Unpooled.EMPTY_BUFFER);
    for (Map.Entry<String, String> h : get.headers()) {
      request.headers().add(h.getKey(), h.getValue());
    }
    long millis = Math.max(1, get.readTimeout().toMillis());
    timeout = ch.eventLoop().schedule(() -> noAnswer(new IOException("no answer within " + millis + " ms")),
        millis, TimeUnit.MILLISECONDS);
    ch.writeAndFlush(request).addListener(f -> {
      if (!f.isSuccess()) {
        noAnswer(f.cause());
      }
    });
  }

  @Override
  public void onResponse(HttpResponse head) {
    if (answered.isDone()) {
      return; // timed out just before: the connection is being closed
    }
    int status = head.status().code();
    if (status < 200 || status > 299) {
      errorStatus = status;
      errorBody = new StringBuilder();
      return;
    }
    Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    for (String name : head.headers().names()) {
      headers.put(name, head.headers().getAll(name));
    }
    try {
      PlainHttpReads.Answer a = backend.answer(get, headers);
      body = new LoopFedRead(a.object(), get.offset(), a.length(), get.what(), channel, pool, get.readTimeout(),
          HttpUtil.isKeepAlive(head));
    } catch (BackendException e) {
      finish(e);
      pool.release(channel, false);
    }
  }

  @Override
  public void onContent(HttpContent content) {
    boolean last = content instanceof LastHttpContent;
    if (body != null && answered.isCompletedExceptionally()) {
      content.release(); // given up between the head and the first bytes: nobody will read this body
      return;
    }
    if (body != null) {
      body.offer(content.content(), last); // the read owns the buffer now
      if (!answered.isDone()) { // the head and the first bytes: the fetch can write those and let clients start
        timeout.cancel(false);
        answered.complete(body);
      }
      return;
    }
    try {
      if (errorBody == null) {
        return; // no head yet, or the exchange was given up: the connection is closing
      }
      if (errorBody.length() < PlainHttpReads.ERROR_BODY_MAX) {
        String text = content.content().toString(StandardCharsets.UTF_8);
        errorBody.append(text, 0, Math.min(text.length(), PlainHttpReads.ERROR_BODY_MAX - errorBody.length()));
      }
      if (last || errorBody.length() >= PlainHttpReads.ERROR_BODY_MAX) {
        finish(backend.failure(get, errorStatus, errorBody.toString()));
        errorBody = null;
        pool.release(channel, last); // an error body longer than that is not worth draining
      }
    } finally {
      content.release();
    }
  }

  @Override
  public void onWritabilityChanged(boolean writable) {
    // one small request: nothing to hold back
  }

  @Override
  public void onFailure(Throwable cause) {
    if (body != null) {
      body.fail(cause);
    }
    finish(new NoAnswer(get.what() + ": connection failed before the answer", cause));
  }

  private void noAnswer(Throwable cause) {
    if (!answered.isDone()) {
      finish(new NoAnswer(get.what() + ": " + cause.getMessage(), cause));
      if (channel != null) {
        channel.close(); // the pool takes it back once it is inactive (the listener is still this exchange)
      }
    }
  }

  /** Completes the exchange with {@code failure} unless it completed already. */
  private void finish(Exception failure) {
    if (timeout != null) {
      timeout.cancel(false);
    }
    answered.completeExceptionally(failure);
  }
}
