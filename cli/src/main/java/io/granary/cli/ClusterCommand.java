package io.granary.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.Rebalance;
import io.granary.common.s3.auth.RequestSigner;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code granary cluster show|node|set-state|set-weight|rm}: look at and change cluster membership. */
@Command(name = "cluster", mixinStandardHelpOptions = true,
    description = "Show the cluster or a node, change a node's state or a target's weight, remove a dead target.",
    subcommands = {ClusterCommand.Show.class, NodeCommand.class, SetStateCommand.class, SetWeightCommand.class,
        RemoveNodeCommand.class})
public final class ClusterCommand {

  /**
   * Options every admin command shares. {@code --cluster} is the name the bucket commands give the proxy (their
   * {@code --endpoint} is the remote store's), so a command copied from one to another still works.
   */
  static final class Endpoint {
    @Option(names = {"--endpoint", "--cluster"}, defaultValue = "${env:GRANARY_ENDPOINT:-http://127.0.0.1:51080}",
        converter = ProxyUrl.class, description = "A proxy URL (default: ${DEFAULT-VALUE}; env GRANARY_ENDPOINT).")
    String url;

    @Mixin
    Signing signing = new Signing();

    HttpResponse<String> send(HttpRequest.Builder b) throws Exception {
      HttpClient c = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      HttpRequest request = signing.sign(b.timeout(Duration.ofSeconds(30)).build());
      try {
        return c.send(request, HttpResponse.BodyHandlers.ofString());
      } catch (ConnectException e) {
        throw new IllegalStateException("cannot reach " + url + " (is the cluster running?)");
      } catch (javax.net.ssl.SSLException e) {
        throw new IllegalStateException("cannot speak TLS with " + url + " (" + e.getMessage()
            + "); a local cluster's proxy is http://");
      }
    }

    static String check(HttpResponse<String> r) throws Exception {
      if (r.statusCode() / 100 != 2) {
        throw ApiError.of(r);
      }
      return r.body();
    }

    /** GET {@code path} (from /v1/...) and its JSON answer; a non-2xx answer throws {@link ApiError}. */
    JsonNode get(String path) throws Exception {
      return ClusterJson.mapper().readTree(check(send(HttpRequest.newBuilder(URI.create(url + path)))));
    }

    /** {@code method} with {@code body} as JSON (none when null) and the JSON answer. */
    JsonNode call(String method, String path, Object body) throws Exception {
      HttpRequest.BodyPublisher p = body == null ? HttpRequest.BodyPublishers.noBody()
          : HttpRequest.BodyPublishers.ofByteArray(ClusterJson.mapper().writeValueAsBytes(body));
      return ClusterJson.mapper().readTree(check(send(HttpRequest.newBuilder(URI.create(url + path))
          .method(method, p).header("Content-Type", "application/json"))));
    }
  }

  /**
   * The S3 key pair admin requests are signed with (SigV4, as S3 clients sign), for proxies that require signatures
   * on the native API (a deployed proxy, {@code granary local --auth}); unsigned when none is given.
   */
  static final class Signing {
    @Option(names = "--access-key", description = "Access key to sign requests with (env GRANARY_ACCESS_KEY, else "
        + "AWS_ACCESS_KEY_ID).")
    String accessKey;

    @Option(names = "--secret-key", description = "Its secret key (env GRANARY_SECRET_KEY, else "
        + "AWS_SECRET_ACCESS_KEY).")
    String secretKey;

    HttpRequest sign(HttpRequest r) {
      String accessKey = firstGiven(this.accessKey, "GRANARY_ACCESS_KEY", "AWS_ACCESS_KEY_ID");
      String secretKey = firstGiven(this.secretKey, "GRANARY_SECRET_KEY", "AWS_SECRET_ACCESS_KEY");
      if (blank(accessKey) && blank(secretKey)) {
        return r;
      }
      if (blank(accessKey) || blank(secretKey)) {
        throw new IllegalArgumentException("give both --access-key and --secret-key (or their environment "
            + "variables), or neither");
      }
      URI u = r.uri();
      int port = u.getPort();
      boolean defaultPort = port == -1 || port == 80 && "http".equals(u.getScheme())
          || port == 443 && "https".equals(u.getScheme());
      String host = u.getHost() + (defaultPort ? "" : ":" + port); // as java.net.http writes the Host header
      Map<String, String> headers = new RequestSigner(accessKey, secretKey).sign(r.method(), host,
          u.getRawPath() == null || u.getRawPath().isEmpty() ? "/" : u.getRawPath(),
          u.getRawQuery() == null ? "" : u.getRawQuery(), Instant.now());
      HttpRequest.Builder b = HttpRequest.newBuilder(r, (name, value) -> true);
      headers.forEach(b::setHeader);
      return b.build();
    }

    private static boolean blank(String s) {
      return s == null || s.isBlank();
    }

    /** The flag's value, else the first of the environment variables that is set and not empty. */
    private static String firstGiven(String flag, String... env) {
      if (!blank(flag)) {
        return flag;
      }
      for (String name : env) {
        String v = System.getenv(name);
        if (!blank(v)) {
          return v;
        }
      }
      return null;
    }
  }

  /** An error answer of the API: its status, and the code and message of its JSON body, as one line. */
  static final class ApiError extends IllegalStateException {
    final int status;

    private ApiError(int status, String message) {
      super(message);
      this.status = status;
    }

    static ApiError of(HttpResponse<String> r) {
      String detail;
      try {
        JsonNode err = ClusterJson.mapper().readTree(r.body());
        detail = err.path("code").asText() + ": " + err.path("message").asText();
      } catch (Exception notJson) { // e.g. a load balancer's HTML page: show its start rather than a parse error
        detail = r.body().strip().lines().findFirst().orElse("(no body)");
      }
      return new ApiError(r.statusCode(), r.statusCode() + " " + detail);
    }

    /** This error with {@code context} in front, e.g. "no node 'x' in the cluster map: 404 ...". */
    ApiError within(String context) {
      return new ApiError(status, context + ": " + getMessage());
    }
  }

  @Command(name = "show", mixinStandardHelpOptions = true, description = "Print the cluster map as a table.")
  static final class Show implements Callable<Integer> {
    @picocli.CommandLine.Mixin
    Endpoint endpoint = new Endpoint();

    @Option(names = "--json", description = "Print the raw JSON map.")
    boolean json;

    @Override
    public Integer call() throws Exception {
      String body = Endpoint.check(endpoint.send(HttpRequest.newBuilder(URI.create(endpoint.url + "/v1/cluster/map"))));
      if (json) {
        System.out.println(body);
        return 0;
      }
      JsonNode map = ClusterJson.mapper().readTree(body);
      System.out.printf("cluster %s, map version %d, primary %s%n", map.path("uuid").asText(),
          map.path("version").asLong(), map.path("primary").asText());
      System.out.printf("%-12s %-7s %-15s %-7s %s%n", "NODE", "ROLE", "STATE", "WEIGHT", "URL");
      for (String group : new String[] {"proxies", "targets"}) {
        for (JsonNode n : map.path(group)) {
          System.out.printf("%-12s %-7s %-15s %-7s %s%n", n.path("id").asText(), n.path("role").asText(),
              n.path("state").asText(), n.path("weight").asText(), n.path("url").asText());
        }
      }
      JsonNode rb = map.path("rebalance");
      if (rb.isObject()) {
        System.out.printf("rebalance %s%d: %s%s, started %s%s%s%n", Rebalance.JOB_PREFIX, rb.path("id").asLong(),
            rb.path("state").asText(), rb.path("attempt").asInt(1) > 1 ? " (attempt " + rb.path("attempt").asInt()
                + ")" : "", RebalanceReport.time(rb.path("started")),
            rb.hasNonNull("ended") ? ", ended " + RebalanceReport.time(rb.path("ended")) : "",
            rb.hasNonNull("nextAttempt") ? "; failed, retried at " + RebalanceReport.time(rb.path("nextAttempt"))
                : "");
      }
      if (!map.path("retired").isEmpty()) {
        List<String> retired = new ArrayList<>();
        map.path("retired").forEach(id -> retired.add(id.asText()));
        System.out.println("retired (decommissioned): " + String.join(", ", retired));
      }
      return 0;
    }
  }
}
