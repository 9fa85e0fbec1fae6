package io.granary.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.Provider;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code granary bucket create|ls|rm|props}: local buckets and registered remote (S3, GCS) buckets. */
@Command(name = "bucket", mixinStandardHelpOptions = true,
    description = "Create a local bucket, register a remote S3 or GCS bucket, list or remove buckets.",
    subcommands = {BucketCommand.Create.class, BucketCommand.List.class, BucketCommand.Remove.class,
        BucketPropsCommand.class})
public final class BucketCommand {

  /** The proxy to talk to; {@code --endpoint} is taken by the remote store's URL in {@code create}. */
  static final class Cluster {
    @Option(names = "--cluster", defaultValue = "${env:GRANARY_ENDPOINT:-http://127.0.0.1:51080}",
        converter = ProxyUrl.class, description = "A proxy URL (default: ${DEFAULT-VALUE}; env GRANARY_ENDPOINT).")
    String url;

    @Mixin
    ClusterCommand.Signing signing = new ClusterCommand.Signing();

    ClusterCommand.Endpoint endpoint() {
      ClusterCommand.Endpoint e = new ClusterCommand.Endpoint();
      e.url = url;
      e.signing = signing;
      return e;
    }
  }

  /** {@code s3://b}, {@code gs://b}, {@code ais://b} or a bare name (local). */
  static Bucket parse(String uri) {
    int i = uri.indexOf("://");
    try {
      return i < 0 ? Bucket.local(uri) : new Bucket(Provider.parse(uri.substring(0, i)), uri.substring(i + 3));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("bad bucket '" + uri + "': " + e.getMessage());
    }
  }

  static String path(Bucket b) {
    return "/v1/buckets/" + URLEncoder.encode(b.name(), StandardCharsets.UTF_8) + "?provider="
        + b.provider().wireName();
  }

  @Command(name = "create", mixinStandardHelpOptions = true,
      description = {"Create a local bucket (ais://b or b), or register a remote one (s3://b, gs://b).",
          "Registering checks the remote answers with the given settings."})
  static final class Create implements Callable<Integer> {
    @Mixin
    Cluster cluster = new Cluster();

    @Parameters(index = "0", description = "The bucket: s3://NAME, gs://NAME, ais://NAME or NAME.")
    String bucket;

    @Option(names = "--endpoint", description = "Remote store URL, e.g. http://127.0.0.1:9000 (default: the "
        + "provider's public endpoint).")
    String endpoint;

    @Option(names = "--region", description = "S3 region (default: us-east-1).")
    String region;

    @Option(names = "--path-style", description = "S3 path-style addressing (most S3-compatible servers need it).")
    boolean pathStyle;

    @Option(names = "--credentials-file", description = {"S3: an AWS shared-credentials file; GCS: a service-account "
        + "JSON key. Read by every node at this path (mount it as a Secret in Kubernetes); never copied.",
        "Default: the provider's environment (AWS_ACCESS_KEY_ID..., GOOGLE_APPLICATION_CREDENTIALS)."})
    Path credentialsFile;

    @Option(names = "--profile", description = "Profile in the S3 credentials file (default: default).")
    String profile;

    @Option(names = "--anonymous", description = "Unsigned requests (public buckets, emulators).")
    boolean anonymous;

    @Option(names = "--ttl", description = "Revalidate a cached object against the remote when last checked longer "
        + "ago than this: 30s, 5m, 1h, 0 (every read) or never (default: 60s).")
    String ttl;

    @Option(names = "--sync", description = "Drop cached objects deleted remotely (they answer 404).")
    boolean sync;

    @Option(names = "--checksum",
        description = "Checksum of stored objects: xxhash64 (default), md5, crc32c, sha256, crc32, sha1, crc64nvme.")
    String checksum;

    @Option(names = "--prop", paramLabel = "KEY=VALUE", description = "A protection property, e.g. --prop "
        + "mirror.copies=2 (repeatable; see `granary bucket props`).")
    java.util.List<String> props = new java.util.ArrayList<>();

    @Override
    public Integer call() throws Exception {
      Bucket b = parse(bucket);
      ObjectNode body = ClusterJson.mapper().createObjectNode();
      if (checksum != null) {
        body.put("checksum", checksum);
      }
      if (!props.isEmpty()) {
        body.set("protection", BucketPropsCommand.settings(props));
      }
      if (b.provider() != Provider.AIS) {
        ObjectNode be = body.putObject("backend");
        if (endpoint != null) {
          be.put("endpoint", endpoint);
        }
        if (region != null) {
          be.put("region", region);
        }
        be.put("pathStyle", pathStyle);
        if (credentialsFile != null) {
          if (!Files.isReadable(credentialsFile)) {
            throw new IllegalArgumentException("--credentials-file " + credentialsFile + " is not a readable file");
          }
          be.put("credentialsFile", credentialsFile.toAbsolutePath().toString());
        }
        if (profile != null) {
          be.put("profile", profile);
        }
        be.put("anonymous", anonymous);
        ObjectNode fr = body.putObject("freshness");
        if (ttl != null) {
          fr.put("ttl", ttl);
        }
        fr.put("sync", sync);
      } else if (endpoint != null || region != null || credentialsFile != null || ttl != null || sync || anonymous) {
        throw new IllegalArgumentException("remote options (--endpoint, --region, --credentials-file, --ttl, --sync, "
            + "--anonymous) apply to s3:// and gs:// buckets only");
      }
      ClusterCommand.Endpoint e = cluster.endpoint();
      String answer = ClusterCommand.Endpoint.check(e.send(HttpRequest.newBuilder(URI.create(e.url + path(b)))
          .POST(HttpRequest.BodyPublishers.ofString(ClusterJson.mapper().writeValueAsString(body)))
          .header("Content-Type", "application/json")));
      JsonNode props = ClusterJson.mapper().readTree(answer);
      System.out.println((b.provider() == Provider.AIS ? "created " : "registered ") + b
          + (props.has("id") ? " (id " + props.path("id").asText() + ")" : ""));
      return 0;
    }
  }

  @Command(name = "ls", mixinStandardHelpOptions = true, description = "List buckets.")
  static final class List implements Callable<Integer> {
    @Mixin
    ClusterCommand.Endpoint e = new ClusterCommand.Endpoint(); // --cluster or --endpoint: ls names no remote

    @Override
    public Integer call() throws Exception {
      JsonNode all = ClusterJson.mapper().readTree(ClusterCommand.Endpoint.check(
          e.send(HttpRequest.newBuilder(URI.create(e.url + "/v1/buckets")))));
      JsonNode list = all.has("buckets") ? all.path("buckets") : all;
      System.out.printf("%-40s %-9s %s%n", "BUCKET", "CHECKSUM", "REMOTE ENDPOINT");
      for (JsonNode b : list) {
        JsonNode id = b.path("bucket");
        String name = id.isObject() ? Provider.parse(id.path("provider").asText()).scheme() + "://"
            + id.path("name").asText() : b.path("name").asText();
        System.out.printf("%-40s %-9s %s%n", name, b.path("checksum").asText(),
            b.path("backend").path("endpoint").asText(b.has("backend") ? "default" : ""));
      }
      return 0;
    }
  }

  @Command(name = "rm", mixinStandardHelpOptions = true,
      description = "Remove a bucket (a remote bucket is only unregistered: its cached copies go, the remote stays).")
  static final class Remove implements Callable<Integer> {
    @Mixin
    ClusterCommand.Endpoint e = new ClusterCommand.Endpoint(); // --cluster or --endpoint: rm names no remote

    @Parameters(index = "0", description = "The bucket.")
    String bucket;

    @Option(names = "--force", description = "Remove a local bucket even if it holds objects.")
    boolean force;

    @Override
    public Integer call() throws Exception {
      Bucket b = parse(bucket);
      try {
        ClusterCommand.Endpoint.check(e.send(HttpRequest.newBuilder(URI.create(e.url + path(b)
            + (force ? "&force=true" : ""))).DELETE()));
      } catch (ClusterCommand.ApiError err) {
        if (err.status == 409 && err.getMessage().contains("BucketNotEmpty")) {
          throw new IllegalStateException("bucket " + b + " is not empty: delete its objects first, or add --force "
              + "to remove it with them");
        }
        throw err;
      }
      System.out.println("removed " + b);
      return 0;
    }
  }
}
