package io.granary.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;

/**
 * Follows a job until it ends with short long-polls ({@code GET /v1/jobs/ID?wait=2s}), drawing a progress line on
 * stderr, then prints the outcome and the failed names. Exit code: 0 when the job succeeded, 1 otherwise.
 */
final class JobWaiter {
  /** Failed names printed at the end; the rest are counted ("granary job show ID" lists up to 1000). */
  static final int SHOW_FAILURES = 20;

  private JobWaiter() {}

  static int await(ClusterCommand.Endpoint endpoint, String id, boolean progress) throws Exception {
    PrintStream err = System.err;
    boolean tty = System.console() != null;
    JsonNode job;
    String last = "";
    while (true) {
      job = get(endpoint, id, "2s");
      if (progress) {
        String line = ProgressLine.render(job);
        if (tty) {
          err.print("\r" + line + " ".repeat(Math.max(0, last.length() - line.length())));
          err.flush();
        } else if (!"running".equals(job.path("state").asText())) {
          err.println(line); // not a terminal: no redrawn lines, just the last one
        }
        last = line;
      }
      if (!"running".equals(job.path("state").asText())) {
        break;
      }
    }
    if (progress && tty) {
      err.println();
    }
    return report(job, err);
  }

  static JsonNode get(ClusterCommand.Endpoint endpoint, String id, String wait) throws Exception {
    String url = endpoint.url + "/v1/jobs/" + URLEncoder.encode(id, StandardCharsets.UTF_8)
        + (wait == null ? "" : "?wait=" + wait);
    return ClusterJson.mapper().readTree(ClusterCommand.Endpoint.check(endpoint.send(
        HttpRequest.newBuilder(URI.create(url)))));
  }

  /** Prints how the job ended; 0 when it succeeded. */
  static int report(JsonNode job, PrintStream out) {
    String state = job.path("state").asText();
    JsonNode o = job.path("objects");
    out.printf("job %s %s: %d fetched (%s), %d already cached, %d not found, %d failed%n", job.path("id").asText(),
        state, o.path("fetched").asLong(), ProgressLine.bytes(job.path("bytes").path("done").asLong()),
        o.path("cached").asLong(), o.path("not_found").asLong(), o.path("failed").asLong());
    if (job.hasNonNull("error")) {
      out.println("error: " + job.path("error").asText());
    }
    int shown = 0;
    for (JsonNode f : job.path("failures")) {
      if (shown++ == SHOW_FAILURES) {
        break;
      }
      out.println("  failed: " + f.path("name").asText() + ": " + f.path("error").asText());
    }
    long more = o.path("failed").asLong() - Math.min(shown, SHOW_FAILURES);
    if (more > 0) {
      out.printf("  ... and %d more (see granary job show %s; retry with granary job retry %s)%n", more,
          job.path("id").asText(), job.path("id").asText());
    }
    return "succeeded".equals(state) ? 0 : 1;
  }
}
