package io.granary.loader.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** An HTTP answer other than the expected one: status plus the error code of Granary's JSON body if any. */
public final class StatusException extends IOException {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Pattern S3_CODE = Pattern.compile("<Code>([^<]*)</Code>");
  private static final Pattern S3_MESSAGE = Pattern.compile("<Message>([^<]*)</Message>");
  private final int status;

  public StatusException(int status, String what) {
    super(what);
    this.status = status;
  }

  public int status() {
    return status;
  }

  /** {@code "404 ObjectNotFound: object ... does not exist"}, or just the status when the body says nothing. */
  static StatusException of(int status, byte[] body) {
    String text = body == null ? "" : new String(body, 0, Math.min(body.length, 1024), StandardCharsets.UTF_8);
    try {
      JsonNode err = MAPPER.readTree(text);
      if (err != null && err.hasNonNull("code")) {
        return new StatusException(status, status + " " + err.path("code").asText() + ": "
            + err.path("message").asText());
      }
    } catch (IOException | RuntimeException notJson) {
      // plain text or empty: fall through
    }
    Matcher code = S3_CODE.matcher(text);
    if (code.find()) { // an S3 error document
      Matcher message = S3_MESSAGE.matcher(text);
      return new StatusException(status, status + " " + code.group(1) + (message.find() ? ": " + message.group(1) : ""));
    }
    String line = text.lines().findFirst().orElse("").strip();
    return new StatusException(status, line.isEmpty() ? "HTTP " + status : status + " " + line);
  }
}
