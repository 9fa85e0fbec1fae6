package io.granary.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code granary cluster set-weight ID W}: a target's share of placement, e.g. after it got bigger disks. */
@Command(name = "set-weight", mixinStandardHelpOptions = true,
    description = "Change a target's placement weight; a rebalance moves objects to match.")
final class SetWeightCommand implements Callable<Integer> {
  @Mixin
  ClusterCommand.Endpoint endpoint = new ClusterCommand.Endpoint();

  @Parameters(index = "0", paramLabel = "ID", description = "Target id.")
  String node;

  @Parameters(index = "1", paramLabel = "W", description = "The new weight, > 0: relative capacity, e.g. in TiB.")
  double weight;

  @Override
  public Integer call() throws Exception {
    JsonNode map;
    try {
      map = endpoint.call("PUT", "/v1/cluster/nodes/" + URLEncoder.encode(node, StandardCharsets.UTF_8),
          Map.of("weight", weight));
    } catch (ClusterCommand.ApiError e) {
      throw e.status == 404 ? e.within("no target '" + node + "' in the cluster map") : e;
    }
    NodeChangeReport.print(map, node, System.out);
    return 0;
  }
}
