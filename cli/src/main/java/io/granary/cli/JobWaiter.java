package io.granary.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Follows a job (a prefetch or a rebalance) until it ends with short long-polls ({@code GET /v1/jobs/ID?wait=2s}),
 * drawing its progress line on stderr, then prints the outcome. Exit code: 0 when the job succeeded, 1 otherwise.
 *
 * <p>A rebalance that a newer one supersedes (a node changed state meanwhile) has not failed: its work goes on in
 * the newer one, so the waiter follows that. So is a failed rebalance the primary will retry by itself
 * ({@code next_attempt}): the waiter follows the retry.
 */
final class JobWaiter {
  private JobWaiter() {}

  /**
   * Starts a job ({@code POST /v1/jobs} with {@code body}), prints its id on stdout and, with {@code await}, waits
   * for it to end; answers the exit code.
   */
  static int start(ClusterCommand.Endpoint endpoint, Map<String, Object> body, boolean await) throws Exception {
    String answer = ClusterCommand.Endpoint.check(endpoint.send(
        HttpRequest.newBuilder(URI.create(endpoint.url + "/v1/jobs"))
            .POST(HttpRequest.BodyPublishers.ofByteArray(ClusterJson.mapper().writeValueAsBytes(body)))
            .header("Content-Type", "application/json")));
    String id = ClusterJson.mapper().readTree(answer).path("id").asText();
    System.out.println(id);
    return await ? await(endpoint, id, true) : 0;
  }

  /** Waits for job {@code id} to end and prints its outcome on stderr; answers the exit code. */
  static int await(ClusterCommand.Endpoint endpoint, String id, boolean progress) throws Exception {
    JsonNode job = follow(endpoint, id, progress);
    return JobReport.of(job).outcome(job, System.err);
  }

  /** Waits for job {@code id}, or the rebalance that superseded it, to end; answers its last status. */
  static JsonNode follow(ClusterCommand.Endpoint endpoint, String id, boolean progress) throws Exception {
    ProgressPrinter line = new ProgressPrinter(progress);
    String current = id;
    while (true) {
      JsonNode job = get(endpoint, current, "2s");
      JobReport report = JobReport.of(job);
      String state = job.path("state").asText();
      if ("superseded".equals(state) && job.hasNonNull("superseded_by")) {
        String next = job.path("superseded_by").asText();
        line.last(current + " was superseded by " + next + "; following " + next);
        current = next;
      } else if ("running".equals(state)) {
        line.update(report.progress(job));
      } else if ("failed".equals(state) && job.hasNonNull("next_attempt")) {
        line.update(report.progress(job) + "; retrying at " + RebalanceReport.time(job.path("next_attempt")));
      } else {
        line.last(report.progress(job));
        return job;
      }
    }
  }

  static JsonNode get(ClusterCommand.Endpoint endpoint, String id, String wait) throws Exception {
    return endpoint.get("/v1/jobs/" + URLEncoder.encode(id, StandardCharsets.UTF_8)
        + (wait == null ? "" : "?wait=" + wait));
  }
}
