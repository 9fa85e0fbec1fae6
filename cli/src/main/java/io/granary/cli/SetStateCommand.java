package io.granary.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code granary cluster set-state ID STATE [--no-rebalance]}: maintenance, return, decommission. */
@Command(name = "set-state", mixinStandardHelpOptions = true,
    description = "Put a node in maintenance (with or without moving its objects), back to active, or decommission it.")
final class SetStateCommand implements Callable<Integer> {
  @Mixin
  ClusterCommand.Endpoint endpoint = new ClusterCommand.Endpoint();

  @Parameters(index = "0", paramLabel = "ID", description = "Node id.")
  String node;

  @Parameters(index = "1", paramLabel = "STATE", description = {"active, maintenance, suspended or decommissioned.",
      "maintenance: out of placement, its objects move to the other targets (a long absence).",
      "suspended: keeps its place, its objects answer 503 until it is back (a short restart).",
      "decommissioned: its objects move off, then it leaves the map for good."})
  String state;

  @Option(names = "--no-rebalance",
      description = "With maintenance: keep the node's place and move nothing (the same as suspended).")
  boolean noRebalance;

  @Override
  public Integer call() throws Exception {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("state", state);
    if (noRebalance) {
      body.put("rebalance", false); // the proxy refuses it with any state but maintenance, and says so
    }
    JsonNode map;
    try {
      map = endpoint.call("PUT", "/v1/cluster/nodes/" + URLEncoder.encode(node, StandardCharsets.UTF_8), body);
    } catch (ClusterCommand.ApiError e) {
      throw e.status == 404 && !e.getMessage().contains("NodeNotFound")
          ? e.within("no node '" + node + "' in the cluster map") : e; // an older proxy's 404 names no node
    }
    NodeChangeReport.print(map, node, System.out);
    return 0;
  }
}
