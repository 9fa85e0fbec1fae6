package io.granary.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code granary job show|wait|abort|retry}: follow and control jobs (docs/jobs.md). */
@Command(name = "job", mixinStandardHelpOptions = true, description = "Show, wait for, abort or retry jobs.",
    subcommands = {JobCommand.Show.class, JobCommand.Wait.class, JobCommand.Abort.class, JobCommand.Retry.class})
public final class JobCommand {

  private static String jobUrl(ClusterCommand.Endpoint e, String id) {
    return e.url + "/v1/jobs/" + URLEncoder.encode(id, StandardCharsets.UTF_8);
  }

  @Command(name = "show", mixinStandardHelpOptions = true, description = "All jobs as a table, or one job in detail.")
  static final class Show implements Callable<Integer> {
    @Mixin
    ClusterCommand.Endpoint endpoint = new ClusterCommand.Endpoint();

    @Parameters(index = "0", arity = "0..1", paramLabel = "ID", description = "A job id; none for all jobs.")
    String id;

    @Option(names = "--json", description = "Print the raw JSON.")
    boolean json;

    @Override
    public Integer call() throws Exception {
      if (id == null) {
        String body = ClusterCommand.Endpoint.check(endpoint.send(
            HttpRequest.newBuilder(URI.create(endpoint.url + "/v1/jobs"))));
        if (json) {
          System.out.println(body);
          return 0;
        }
        System.out.printf("%-16s %-9s %-10s %-22s %-20s %-8s %s%n", "ID", "KIND", "STATE", "BUCKET", "OBJECTS",
            "FAILED", "STARTED");
        for (JsonNode j : ClusterJson.mapper().readTree(body).path("jobs")) {
          // The list holds every kind (a rebalance first): each kind says what its OBJECTS column is.
          System.out.printf("%-16s %-9s %-10s %-22s %-20s %-8d %s%n", j.path("id").asText(), j.path("kind").asText(),
              j.path("state").asText(), j.hasNonNull("bucket") ? j.path("bucket").asText() : "-",
              JobReport.of(j).objects(j), j.path("objects").path("failed").asLong(), j.path("started").asText());
        }
        return 0;
      }
      JsonNode job = JobWaiter.get(endpoint, id, null);
      if (json) {
        System.out.println(ClusterJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(job));
        return 0;
      }
      JobReport.of(job).details(job, System.out);
      return 0;
    }
  }

  @Command(name = "wait", mixinStandardHelpOptions = true,
      description = "Wait for a job to end, showing progress; exit 1 unless it succeeded.")
  static final class Wait implements Callable<Integer> {
    @Mixin
    ClusterCommand.Endpoint endpoint = new ClusterCommand.Endpoint();

    @Parameters(index = "0", paramLabel = "ID")
    String id;

    @Option(names = "--quiet", description = "No progress line.")
    boolean quiet;

    @Override
    public Integer call() throws Exception {
      return JobWaiter.await(endpoint, id, !quiet);
    }
  }

  @Command(name = "abort", mixinStandardHelpOptions = true, description = "Abort a job; cached objects stay.")
  static final class Abort implements Callable<Integer> {
    @Mixin
    ClusterCommand.Endpoint endpoint = new ClusterCommand.Endpoint();

    @Parameters(index = "0", paramLabel = "ID")
    String id;

    @Override
    public Integer call() throws Exception {
      JsonNode job = ClusterJson.mapper().readTree(ClusterCommand.Endpoint.check(endpoint.send(
          HttpRequest.newBuilder(URI.create(jobUrl(endpoint, id))).DELETE())));
      System.out.println("job " + id + " is " + job.path("state").asText());
      return 0;
    }
  }

  @Command(name = "retry", mixinStandardHelpOptions = true,
      description = "Start a new job over what a finished job failed to fetch; prints the new id.")
  static final class Retry implements Callable<Integer> {
    @Mixin
    ClusterCommand.Endpoint endpoint = new ClusterCommand.Endpoint();

    @Parameters(index = "0", paramLabel = "ID")
    String id;

    @Option(names = "--wait", description = "Show progress until the new job ends.")
    boolean await;

    @Override
    public Integer call() throws Exception {
      JsonNode r = ClusterJson.mapper().readTree(ClusterCommand.Endpoint.check(endpoint.send(
          HttpRequest.newBuilder(URI.create(jobUrl(endpoint, id) + "/retry"))
              .POST(HttpRequest.BodyPublishers.noBody()))));
      String newId = r.path("id").asText();
      System.out.println(newId);
      return await ? JobWaiter.await(endpoint, newId, true) : 0;
    }
  }
}
