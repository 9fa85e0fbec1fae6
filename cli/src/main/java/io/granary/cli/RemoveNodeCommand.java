package io.granary.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code granary cluster rm ID --force}: removes a dead target (its process and disks gone for good) from the map
 * without moving its data, starts a rebalance among the survivors, and prints what was lost. A live target is
 * refused: decommission it so its objects move first.
 */
@Command(name = "rm", mixinStandardHelpOptions = true,
    description = {"Remove a dead target (process and disks gone for good) without moving its data.",
        "Objects of local buckets that only it held are lost; remote buckets' objects are fetched again on demand.",
        "A live target is refused: use set-state ID decommissioned instead."})
final class RemoveNodeCommand implements Callable<Integer> {
  @Mixin
  ClusterCommand.Endpoint endpoint = new ClusterCommand.Endpoint();

  @Parameters(index = "0", paramLabel = "ID", description = "The dead target's id.")
  String node;

  @Option(names = "--force", description = "Confirm that its data is lost for good (required).")
  boolean force;

  @Override
  public Integer call() throws Exception {
    JsonNode r = endpoint.call("DELETE", "/v1/cluster/nodes/" + URLEncoder.encode(node, StandardCharsets.UTF_8)
        + "?force=" + force, null);
    String rb = r.path("rebalance").asText();
    System.out.printf("%s (%s) removed from the map (version %d); it may not join again under this id%n",
        r.path("removed").asText(), r.path("state").asText(), r.path("map_version").asLong());
    System.out.println("lost: " + r.path("lost").asText());
    System.out.println("fetched again: " + r.path("refetched").asText());
    System.out.printf("rebalance %s among the other targets; follow it with: granary rebalance show %s --wait%n", rb,
        rb);
    return 0;
  }
}
