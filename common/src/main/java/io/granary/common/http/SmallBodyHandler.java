package io.granary.common.http;

import io.granary.common.error.PayloadTooLargeException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.handler.codec.http.HttpContent;

/**
 * A handler for requests with a small body (JSON or XML documents): it collects at most {@code limit} bytes
 * (413 beyond) and then calls {@link #handle} with them. Never for object data.
 */
public abstract class SmallBodyHandler implements RequestHandler {
  private final int limit;
  private CompositeByteBuf body;

  protected SmallBodyHandler(int limit) {
    this.limit = limit;
  }

  @Override
  public void onRequest(HttpExchange exchange) throws Exception {
    long declared = exchange.declaredLength();
    if (declared > limit) {
      throw new PayloadTooLargeException("request body of " + declared + " bytes exceeds the " + limit + "-byte limit");
    }
  }

  @Override
  public void onContent(HttpExchange exchange, HttpContent chunk) {
    ByteBuf c = chunk.content();
    if (!c.isReadable()) {
      return;
    }
    if (body == null) {
      body = exchange.alloc().compositeBuffer();
    }
    if (body.readableBytes() + c.readableBytes() > limit) {
      throw new PayloadTooLargeException("request body exceeds the " + limit + "-byte limit");
    }
    body.addComponent(true, c.retain());
  }

  @Override
  public void onEnd(HttpExchange exchange) throws Exception {
    byte[] bytes = body == null ? new byte[0] : ByteBufUtil.getBytes(body);
    release();
    handle(exchange, bytes);
  }

  @Override
  public void onAbort(HttpExchange exchange, Throwable cause) {
    release();
  }

  private void release() {
    if (body != null) {
      body.release();
      body = null;
    }
  }

  /** Serves the request with its body (empty when there was none). May answer asynchronously. */
  protected abstract void handle(HttpExchange exchange, byte[] body) throws Exception;
}
