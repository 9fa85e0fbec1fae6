package io.granary.common.http;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.common.error.BadRequestException;
import java.io.IOException;

/**
 * A handler for small admin requests whose body, if any, is JSON: it collects the body (at most
 * {@value #MAX_BODY} bytes, else 413) and calls {@link #handle(HttpExchange, JsonNode)} with it parsed, or with
 * {@code null} when empty. Malformed JSON is answered with 400 {@code MalformedJSON} before that runs.
 */
public abstract class JsonRequestHandler extends SmallBodyHandler {
  public static final int MAX_BODY = 1024 * 1024;

  protected JsonRequestHandler() {
    super(MAX_BODY);
  }

  @Override
  protected final void handle(HttpExchange exchange, byte[] body) throws Exception {
    JsonNode json = null;
    if (body.length > 0) {
      try {
        json = ClusterJson.mapper().readTree(body);
      } catch (JacksonException e) {
        throw new BadRequestException(BadRequestException.MALFORMED_JSON,
            "request body is not valid JSON: " + e.getOriginalMessage());
      } catch (IOException e) {
        throw new BadRequestException(BadRequestException.MALFORMED_JSON, "request body could not be read: " + e);
      }
    }
    handle(exchange, json);
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
