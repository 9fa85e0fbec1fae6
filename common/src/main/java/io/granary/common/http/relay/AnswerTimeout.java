package io.granary.common.http.relay;

import java.time.Duration;

/**
 * How long an {@link ObjectRelay} waits for its upstream's answer head once the whole request has been sent, and the
 * object it names when it gives up (for the one log line a timeout makes).
 *
 * @param limit the longest wait; zero or less: no limit
 * @param bucket the bucket the request names, for the log
 * @param object the object the request names, for the log
 */
public record AnswerTimeout(Duration limit, String bucket, String object) {
  /** No limit: the relay waits as long as the upstream connection stays open. */
  public static final AnswerTimeout NONE = new AnswerTimeout(Duration.ZERO, null, null);

  public AnswerTimeout {
    limit = limit == null ? Duration.ZERO : limit;
  }

  boolean limited() {
    return limit.toNanos() > 0;
  }
}
