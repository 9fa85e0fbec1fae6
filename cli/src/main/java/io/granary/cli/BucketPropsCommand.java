package io.granary.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.Protection;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code granary bucket props set|show}: a bucket's protection properties (docs/protection.md). */
@Command(name = "props", mixinStandardHelpOptions = true,
    description = "Show or set a bucket's protection properties: " + Protection.MIRROR_COPIES + ", "
        + Protection.EC_DATA + ", " + Protection.EC_PARITY + ", " + Protection.EC_OBJ_SIZE_LIMIT + ", "
        + Protection.VALIDATE_WARM_GET + ".",
    subcommands = {BucketPropsCommand.Set.class, BucketPropsCommand.Show.class})
final class BucketPropsCommand {

  /** {@code KEY=VALUE} arguments as the JSON object the proxy takes; the proxy checks keys and values. */
  static ObjectNode settings(List<String> pairs) {
    ObjectNode body = ClusterJson.mapper().createObjectNode();
    for (String p : pairs) {
      int eq = p.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("expected KEY=VALUE, got '" + p + "'; keys: "
            + String.join(", ", Protection.KEYS));
      }
      body.put(p.substring(0, eq).trim(), p.substring(eq + 1).trim());
    }
    return body;
  }

  static void print(JsonNode props) {
    JsonNode pr = props.path("protection");
    for (String k : Protection.KEYS) {
      System.out.printf("%-26s %s%n", k, pr.path(k).asText());
    }
  }

  @Command(name = "set", mixinStandardHelpOptions = true,
      description = {"Set protection properties, e.g. mirror.copies=2 ec.data=4 ec.parity=2.",
          "A setting the cluster cannot hold is refused and nothing changes."})
  static final class Set implements Callable<Integer> {
    @Mixin
    ClusterCommand.Endpoint e = new ClusterCommand.Endpoint();

    @Parameters(index = "0", description = "The bucket: s3://NAME, gs://NAME, ais://NAME or NAME.")
    String bucket;

    @Parameters(index = "1..*", arity = "1..*", paramLabel = "KEY=VALUE", description = "Properties to set.")
    List<String> pairs;

    @Override
    public Integer call() throws Exception {
      Bucket b = BucketCommand.parse(bucket);
      String answer = ClusterCommand.Endpoint.check(e.send(HttpRequest.newBuilder(URI.create(e.url
          + BucketCommand.path(b))).method("PATCH", HttpRequest.BodyPublishers.ofString(
              ClusterJson.mapper().writeValueAsString(settings(pairs))))
          .header("Content-Type", "application/json")));
      print(ClusterJson.mapper().readTree(answer));
      return 0;
    }
  }

  @Command(name = "show", mixinStandardHelpOptions = true, description = "Show a bucket's protection properties.")
  static final class Show implements Callable<Integer> {
    @Mixin
    ClusterCommand.Endpoint e = new ClusterCommand.Endpoint();

    @Parameters(index = "0", description = "The bucket.")
    String bucket;

    @Override
    public Integer call() throws Exception {
      Bucket b = BucketCommand.parse(bucket);
      JsonNode all = ClusterJson.mapper().readTree(ClusterCommand.Endpoint.check(
          e.send(HttpRequest.newBuilder(URI.create(e.url + "/v1/buckets")))));
      for (JsonNode p : all.path("buckets")) {
        JsonNode id = p.path("bucket");
        if (id.path("name").asText().equals(b.name())
            && id.path("provider").asText().equals(b.provider().wireName())) {
          print(p);
          return 0;
        }
      }
      throw new IllegalArgumentException("no bucket " + b);
    }
  }

  private BucketPropsCommand() {}
}
