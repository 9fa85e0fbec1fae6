package io.granary.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.Rebalance;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code granary rebalance start|show|abort}: the cluster-wide job ({@code rb-N}) that moves objects to the
 * targets that own them under the current map. The primary starts one by itself with every change of placement;
 * these commands start one by hand, follow it, or stop it.
 */
@Command(name = "rebalance", mixinStandardHelpOptions = true,
    description = "Start, show or abort the rebalance that moves objects to their owners.",
    subcommands = {RebalanceCommand.Start.class, RebalanceCommand.Show.class, RebalanceCommand.Abort.class})
public final class RebalanceCommand {

  /** The id of the cluster's latest rebalance, from the map; null when none has run. */
  static String latest(ClusterCommand.Endpoint endpoint) throws Exception {
    JsonNode rb = endpoint.get("/v1/cluster/map").path("rebalance");
    return rb.isObject() ? Rebalance.JOB_PREFIX + rb.path("id").asLong() : null;
  }

  @Command(name = "start", mixinStandardHelpOptions = true,
      description = "Start a rebalance (a running one is superseded) and print its id.")
  static final class Start implements Callable<Integer> {
    @Mixin
    ClusterCommand.Endpoint endpoint = new ClusterCommand.Endpoint();

    @Option(names = "--wait", description = "Show progress until it ends; exit 1 unless it succeeded.")
    boolean await;

    @Override
    public Integer call() throws Exception {
      String id = endpoint.call("POST", "/v1/jobs", Map.of("kind", RebalanceReport.KIND)).path("id").asText();
      System.out.println(id);
      return await ? JobWaiter.await(endpoint, id, true) : 0;
    }
  }

  @Command(name = "show", mixinStandardHelpOptions = true,
      description = "A rebalance in detail: what moved, rate, ETA, what it waits for, failures, each target's part.")
  static final class Show implements Callable<Integer> {
    @Mixin
    ClusterCommand.Endpoint endpoint = new ClusterCommand.Endpoint();

    @Parameters(index = "0", arity = "0..1", paramLabel = "ID",
        description = "A rebalance id (rb-N); default: the latest, from the cluster map.")
    String id;

    @Option(names = "--wait", description = "Show progress until it ends, then the details; exit 1 unless it "
        + "succeeded.")
    boolean await;

    @Option(names = "--json", description = "Print the raw JSON status.")
    boolean json;

    @Override
    public Integer call() throws Exception {
      String rb = id != null ? id : latest(endpoint);
      if (rb == null) {
        System.out.println("no rebalance has run in this cluster yet");
        return 0;
      }
      JsonNode status = await ? JobWaiter.follow(endpoint, rb, true) : JobWaiter.get(endpoint, rb, null);
      if (json) {
        System.out.println(ClusterJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(status));
      } else {
        new RebalanceReport().details(status, System.out);
      }
      return !await || "succeeded".equals(status.path("state").asText()) ? 0 : 1;
    }
  }

  @Command(name = "abort", mixinStandardHelpOptions = true,
      description = "Stop a running rebalance; objects not moved yet stay where they are, and reads still find them.")
  static final class Abort implements Callable<Integer> {
    @Mixin
    ClusterCommand.Endpoint endpoint = new ClusterCommand.Endpoint();

    @Parameters(index = "0", arity = "0..1", paramLabel = "ID",
        description = "A rebalance id (rb-N); default: the latest, from the cluster map.")
    String id;

    @Override
    public Integer call() throws Exception {
      String rb = id != null ? id : latest(endpoint);
      if (rb == null) {
        throw new IllegalStateException("no rebalance has run in this cluster yet");
      }
      JsonNode status = endpoint.call("DELETE", "/v1/jobs/" + URLEncoder.encode(rb, StandardCharsets.UTF_8), null);
      System.out.println("rebalance " + rb + " is " + status.path("state").asText());
      return 0;
    }
  }
}
