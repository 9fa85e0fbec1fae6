package io.granary.common.http;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.common.error.BadRequestException;
import io.granary.common.error.PayloadTooLargeException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.CompositeByteBuf;
import io.netty.handler.codec.http.HttpContent;
import java.io.IOException;
import java.io.InputStream;

/**
 * A handler for small admin requests whose body, if any, is JSON: it collects the body (at most
 * {@value #MAX_BODY} bytes, else 413) and calls {@link #handle} with it parsed, or with {@code null} when empty.
 * Malformed JSON is answered with 400 {@code MalformedJSON} before {@link #handle} runs.
 */
public abstract class JsonRequestHandler implements RequestHandler {
  public static final int MAX_BODY = 1024 * 1024;

  private CompositeByteBuf body;

  @Override
  public void onRequest(HttpExchange exchange) throws Exception {
    long declared = exchange.declaredLength();
    if (declared > MAX_BODY) {
      throw new PayloadTooLargeException("request body of " + declared + " bytes exceeds the " + MAX_BODY + "-byte limit");
    }
  }

  @Override
  public void onContent(HttpExchange exchange, HttpContent chunk) {
    ByteBuf c = chunk.content();
    if (!c.isReadable()) {
      return;
    }
    if (body == null) {
      body = exchange.channel().alloc().compositeBuffer();
    }
    if (body.readableBytes() + c.readableBytes() > MAX_BODY) {
      throw new PayloadTooLargeException("request body exceeds the " + MAX_BODY + "-byte limit");
    }
    body.addComponent(true, c.retain());
  }

  @Override
  public void onEnd(HttpExchange exchange) throws Exception {
    JsonNode json = null;
    try {
      if (body != null && body.isReadable()) {
        try (ByteBufInputStream in = new ByteBufInputStream(body)) {
          json = ClusterJson.mapper().readTree((InputStream) in);
        } catch (JacksonException e) {
          throw new BadRequestException(BadRequestException.MALFORMED_JSON,
              "request body is not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
          throw new BadRequestException(BadRequestException.MALFORMED_JSON, "request body could not be read: " + e);
        }
      }
    } finally {
      release();
    }
    handle(exchange, json);
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

  /** Serves the request; {@code body} is null when the request had none. May answer asynchronously. */
  protected abstract void handle(HttpExchange exchange, JsonNode body) throws Exception;

  /** Converts a JSON body to {@code type}, answering 400 on a shape mismatch. */
  protected static <T> T convert(JsonNode body, Class<T> type) {
    try {
      return ClusterJson.mapper().treeToValue(body, type);
    } catch (JacksonException | IllegalArgumentException e) {
      String msg = e instanceof JacksonException je ? je.getOriginalMessage() : e.getMessage();
      throw new BadRequestException(BadRequestException.MALFORMED_JSON, "request body has the wrong shape: " + msg);
    }
  }
}
