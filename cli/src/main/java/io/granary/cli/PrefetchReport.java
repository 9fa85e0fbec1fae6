package io.granary.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;

/** A prefetch job as {@code granary job} and {@code granary prefetch --wait} show it (docs/jobs.md). */
final class PrefetchReport implements JobReport {

  @Override
  public String progress(JsonNode job) {
    return ProgressLine.render(job);
  }

  @Override
  public int outcome(JsonNode job, PrintStream out) {
    String state = job.path("state").asText();
    JsonNode o = job.path("objects");
    out.printf("job %s %s: %d fetched (%s), %d already cached, %d not found, %d failed%n", job.path("id").asText(),
        state, o.path("fetched").asLong(), ProgressLine.bytes(job.path("bytes").path("done").asLong()),
        o.path("cached").asLong(), o.path("not_found").asLong(), o.path("failed").asLong());
    if (job.hasNonNull("error")) {
      out.println("error: " + job.path("error").asText());
    }
    String id = job.path("id").asText();
    JobReport.failures(job.path("failures"), false, o.path("failed").asLong(),
        "see granary job show " + id + "; retry with granary job retry " + id, out);
    return "succeeded".equals(state) ? 0 : 1;
  }

  @Override
  public void details(JsonNode job, PrintStream out) {
    String sel = job.hasNonNull("prefix") ? "prefix '" + job.path("prefix").asText() + "'"
        : job.hasNonNull("template") ? "template '" + job.path("template").asText() + "'" : "names";
    out.printf("job %s: %s %s (%s), %s%n", job.path("id").asText(), job.path("kind").asText(),
        job.path("bucket").asText(), sel, job.path("state").asText());
    out.println("progress: " + ProgressLine.render(job));
    out.printf("started %s, finished %s%n", job.path("started").asText(),
        job.hasNonNull("finished") ? job.path("finished").asText() : "-");
    out.printf("%-12s %-10s %-8s %-8s %-8s %-8s %-8s %s%n", "TARGET", "STATE", "DONE", "FETCHED", "CACHED",
        "MISSING", "FAILED", "BYTES");
    job.path("targets").fields().forEachRemaining(e -> {
      JsonNode t = e.getValue();
      out.printf("%-12s %-10s %-8d %-8d %-8d %-8d %-8d %s%n", e.getKey(), t.path("state").asText(),
          t.path("done").asLong(), t.path("fetched").asLong(), t.path("cached").asLong(),
          t.path("not_found").asLong(), t.path("failed").asLong(), ProgressLine.bytes(t.path("bytes").asLong()));
    });
    outcome(job, out);
  }

  @Override
  public String objects(JsonNode job) {
    JsonNode o = job.path("objects");
    return o.path("done").asLong() + "/" + (o.hasNonNull("total") ? o.path("total").asText() : "?");
  }
}
