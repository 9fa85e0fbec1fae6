package io.granary.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;

/**
 * A {@code make-n-copies} job ({@code mnc-PROVIDER.BUCKET}, as {@code GET /v1/jobs/ID} answers it) as
 * {@code granary job show} and {@code --wait} print it: records walked and objects queued for copies added or
 * removed, and the targets' queues still draining (docs/protection.md).
 */
final class MakeNCopiesReport implements JobReport {
  static final String KIND = "make-n-copies";

  @Override
  public String progress(JsonNode job) {
    return job.path("id").asText() + " " + summary(job);
  }

  @Override
  public int outcome(JsonNode job, PrintStream out) {
    out.printf("make-n-copies %s %s: %s%n", job.path("id").asText(), job.path("state").asText(), summary(job));
    return "succeeded".equals(job.path("state").asText()) ? 0 : 1;
  }

  @Override
  public void details(JsonNode job, PrintStream out) {
    out.printf("make-n-copies %s: %s, bucket %s, mirror.copies=%d%n", job.path("id").asText(),
        job.path("state").asText(), job.path("bucket").asText(), job.path("copies").asInt());
    out.println(summary(job));
    String row = "%-12s %-10s %-10s %-8s %-12s %s%n";
    out.printf(row, "TARGET", "STATE", "EXAMINED", "QUEUED", "QUEUE-DEPTH", "PROBLEM");
    for (JsonNode t : job.path("targets")) {
      out.printf(row, t.path("target").asText(), t.path("state").asText(), t.path("examined").asLong(),
          t.path("queued").asLong(), t.path("queue_depth").asLong(), t.path("problem").asText(""));
    }
  }

  @Override
  public String objects(JsonNode job) {
    return job.path("queued").asLong() + "/" + job.path("examined").asLong();
  }

  private static String summary(JsonNode job) {
    return job.path("examined").asLong() + " records walked, " + job.path("queued").asLong()
        + " objects queued for copies, " + job.path("queue_depth").asLong() + " waiting in the targets' queues";
  }
}
