package io.granary.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;

/**
 * A {@code scrub} job ({@code scrub-PROVIDER.BUCKET}, as {@code GET /v1/jobs/ID} answers it) as
 * {@code granary job show} and {@code --wait} print it: objects checked, bytes hashed, copies found corrupt, objects
 * repaired and those that could not be (docs/protection.md#scrub).
 */
final class ScrubReport implements JobReport {
  static final String KIND = "scrub";

  @Override
  public String progress(JsonNode job) {
    return job.path("id").asText() + " " + summary(job);
  }

  /** 0 when the scrub succeeded and left nothing unrepaired. */
  @Override
  public int outcome(JsonNode job, PrintStream out) {
    out.printf("scrub %s %s: %s%n", job.path("id").asText(), job.path("state").asText(), summary(job));
    return "succeeded".equals(job.path("state").asText()) && job.path("unrepairable").asLong() == 0 ? 0 : 1;
  }

  @Override
  public void details(JsonNode job, PrintStream out) {
    out.printf("scrub %s: %s, bucket %s%n", job.path("id").asText(), job.path("state").asText(),
        job.path("bucket").asText());
    out.println(summary(job));
    String row = "%-12s %-10s %-9s %-14s %-8s %-9s %-13s %s%n";
    out.printf(row, "TARGET", "STATE", "OBJECTS", "BYTES", "CORRUPT", "REPAIRED", "UNREPAIRABLE", "PROBLEM");
    for (JsonNode t : job.path("targets")) {
      out.printf(row, t.path("target").asText(), t.path("state").asText(), t.path("objects").asLong(),
          t.path("bytes").asLong(), t.path("corrupt").asLong(), t.path("repaired").asLong(),
          t.path("unrepairable").asLong(), t.path("problem").asText(""));
    }
  }

  @Override
  public String objects(JsonNode job) {
    return String.valueOf(job.path("objects").asLong()); // a scrub learns the total as it walks
  }

  private static String summary(JsonNode job) {
    return job.path("objects").asLong() + " objects checked (" + job.path("bytes").asLong() + " bytes hashed), "
        + job.path("corrupt").asLong() + " corrupt copies, " + job.path("repaired").asLong() + " objects repaired, "
        + job.path("unrepairable").asLong() + " unrepairable";
  }
}
