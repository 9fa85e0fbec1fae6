package io.granary.proxy.s3;

import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.s3.S3ApiException;
import io.granary.common.http.relay.RequestBody;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * A handler for S3 requests with a small XML body (DeleteObjects, CreateBucket): it decodes and verifies the body
 * like a relayed one ({@link RequestBody}: payload hash, aws-chunked signatures and checksums), keeps at most
 * {@code limit} bytes, and then calls {@link #handle} with the verified bytes.
 */
abstract class S3BodyCollector implements RequestHandler {
  private final RequestBody body;
  private final int limit;
  private CompositeByteBuf collected;

  S3BodyCollector(RequestBody body, int limit) {
    this.body = body;
    this.limit = limit;
  }

  @Override
  public void onRequest(HttpExchange ex) {
  }

  @Override
  public void onContent(HttpExchange ex, HttpContent chunk) throws Exception {
    if (collected == null) {
      collected = ex.alloc().compositeBuffer();
    }
    body.accept(chunk.content(), (ByteBuf slice) -> {
      if (collected.readableBytes() + slice.readableBytes() > limit) {
        slice.release();
        throw S3ApiException.tooLarge(limit);
      }
      collected.addComponent(true, slice);
    });
    if (chunk instanceof LastHttpContent) {
      body.finish();
    }
  }

  @Override
  public void onEnd(HttpExchange ex) throws Exception {
    byte[] bytes = ByteBufUtil.getBytes(collected);
    release();
    handle(ex, bytes);
  }

  @Override
  public void onAbort(HttpExchange ex, Throwable cause) {
    release();
  }

  private void release() {
    if (collected != null) {
      collected.release();
      collected = null;
    }
  }

  /** Serves the request with its verified body (empty when there was none); may answer asynchronously. */
  protected abstract void handle(HttpExchange ex, byte[] body) throws Exception;
}
