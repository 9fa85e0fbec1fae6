package io.granary.it.loader;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.it.support.GranaryCli;
import io.granary.it.support.GranaryCli.Result;
import io.granary.it.support.Http;
import io.granary.it.support.Resources;
import io.granary.it.support.TestCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code granary load --direct} and {@code --epochs} as users run them, a separate process against a real
 * two-target cluster. The proxy's own request counters ({@code GET /metrics}) tell whether object requests went
 * through it: each native object request to a proxy is answered 307.
 */
class LoaderDirectIT {
  private static final String BUCKET = "direct";
  private static final String EPOCHS_BUCKET = "epochs";
  private static TestCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("loader-direct", 2);
    for (String b : List.of(BUCKET, EPOCHS_BUCKET)) {
      Http.Reply r = cluster.createBucket(b);
      assertThat(r.status()).as(r.bodyText()).isEqualTo(201);
    }
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(cluster);
  }

  @Test
  void directMixedLoad_verifiedWithoutErrors_andTheProxyRedirectsNothing(@TempDir Path dir) throws Exception {
    String before = Http.get(cluster.endpoint() + "/metrics").bodyText();
    Path json = dir.resolve("direct.json");
    // The secret as users pass it: through the environment, never on the command line.
    Result r = cli(Map.of("GRANARY_CLUSTER_SECRET", cluster.local().clusterSecret()), "load", "--endpoint",
        cluster.endpoint(), "--bucket", BUCKET, "--direct", "--duration", "4s", "--workers", "4", "--pct-put", "50",
        "--min-size", "4KiB", "--max-size", "64KiB", "--verify", "--interval", "1s", "--seed", "11", "--cleanup",
        "--json", json.toString());
    System.out.println(r.all());
    assertThat(r.exit()).as(r.all()).isZero();
    assertThat(r.stdout()).contains("native direct to targets").contains("cleanup: deleted");
    assertThat(r.all()).doesNotContain(cluster.local().clusterSecret());
    JsonNode j = ClusterJson.mapper().readTree(json.toFile());
    for (String op : List.of("get", "put")) {
      assertThat(j.path(op).path("count").asLong()).as("%s in %s", op, j).isPositive();
      assertThat(j.path(op).path("errors").asLong()).as("%s in %s", op, j).isZero();
    }
    assertThat(j.path("get").path("verified").asLong()).isEqualTo(j.path("get").path("count").asLong());

    String after = Http.get(cluster.endpoint() + "/metrics").bodyText();
    for (String method : List.of("GET", "PUT", "DELETE")) {
      assertThat(requests(after, method, 307)).as("%s redirects by the proxy", method)
          .isEqualTo(requests(before, method, 307));
    }
    assertThat(listed(BUCKET)).as("--cleanup deleted every object, directly too").isEmpty();
  }

  @Test
  void s3DirectLoad_readsFromTheOwnersS3Endpoints_verifiedWithoutErrors_andNoGetReachesTheProxy(@TempDir Path dir)
      throws Exception {
    String before = Http.get(cluster.endpoint() + "/metrics").bodyText();
    Path json = dir.resolve("s3direct.json");
    // The S3 keys as SDK users pass them; no cluster secret: targets verify the S3 signature themselves
    Result r = cli(Map.of("AWS_ACCESS_KEY_ID", cluster.credentials().accessKey(), "AWS_SECRET_ACCESS_KEY",
        cluster.credentials().secretKey()), "load", "--endpoint", cluster.endpoint(), "--bucket", BUCKET,
        "--protocol", "s3", "--direct", "--duration", "4s", "--workers", "4", "--pct-put", "30", "--min-size", "4KiB",
        "--max-size", "64KiB", "--verify", "--interval", "1s", "--seed", "12", "--cleanup", "--json", json.toString());
    System.out.println(r.all());
    assertThat(r.exit()).as(r.all()).isZero();
    assertThat(r.stdout()).contains("s3 direct to targets").contains("cleanup: deleted");
    JsonNode j = ClusterJson.mapper().readTree(json.toFile());
    long gets = j.path("get").path("count").asLong();
    assertThat(gets).as("%s", j).isPositive();
    assertThat(j.path("get").path("errors").asLong()).as("%s", j).isZero();
    assertThat(j.path("put").path("errors").asLong()).as("%s", j).isZero();
    assertThat(j.path("get").path("verified").asLong()).isEqualTo(gets);

    String after = Http.get(cluster.endpoint() + "/metrics").bodyText();
    assertThat(requests(after, "GET", 200) - requests(before, "GET", 200))
        .as("GETs the proxy answered (a listing at most), against the loader's %d", gets).isLessThan((double) gets);
    assertThat(listed(BUCKET)).as("--cleanup deleted every object").isEmpty();
  }

  @Test
  void epochs_readEveryObjectExactlyOncePerEpoch_countedByTheProxy(@TempDir Path dir) throws Exception {
    int objects = 30;
    int epochs = 3;
    Result fill = cli(Map.of(), "load", "--endpoint", cluster.endpoint(), "--bucket", EPOCHS_BUCKET, "--pct-put",
        "100", "--max-puts", String.valueOf(objects), "--duration", "0", "--min-size", "1KiB", "--max-size", "4KiB",
        "--workers", "3", "--interval", "0");
    assertThat(fill.exit()).as(fill.all()).isZero();
    assertThat(listed(EPOCHS_BUCKET)).hasSize(objects);

    String before = Http.get(cluster.endpoint() + "/metrics").bodyText();
    Path json = dir.resolve("epochs.json");
    Result r = cli(Map.of(), "load", "--endpoint", cluster.endpoint(), "--bucket", EPOCHS_BUCKET, "--epochs",
        String.valueOf(epochs), "--duration", "0", "--workers", "4", "--interval", "0", "--json", json.toString());
    System.out.println(r.all());
    assertThat(r.exit()).as(r.all()).isZero();
    assertThat(r.stdout()).contains("epoch 1 of 3: 30 GETs").contains("epoch 3 of 3: 30 GETs");
    JsonNode j = ClusterJson.mapper().readTree(json.toFile());
    assertThat(j.path("get").path("count").asLong()).isEqualTo((long) objects * epochs);
    assertThat(j.path("get").path("errors").asLong()).isZero();
    String after = Http.get(cluster.endpoint() + "/metrics").bodyText();
    assertThat(requests(after, "GET", 307) - requests(before, "GET", 307)).as("object GETs the proxy redirected")
        .isEqualTo((double) objects * epochs);
  }

  @Test
  void direct_withoutOrWithAWrongSecret_failsFastWithOneLine() throws Exception {
    Result missing = cli(Map.of(), "load", "--endpoint", cluster.endpoint(), "--bucket", BUCKET, "--direct");
    assertThat(missing.exit()).isEqualTo(1);
    assertThat(missing.stderr().strip()).doesNotContain("\n").contains("--direct needs the cluster secret");
    assertThat(missing.stdout()).isEmpty();

    String wrong = "not-the-secret-of-this-cluster";
    Result refused = cli(Map.of("GRANARY_CLUSTER_SECRET", wrong), "load", "--endpoint", cluster.endpoint(),
        "--bucket", BUCKET, "--direct", "--pct-put", "50", "--duration", "2s");
    assertThat(refused.exit()).isEqualTo(1);
    assertThat(refused.stderr().strip()).doesNotContain("\n").contains("refused a signed request (403)")
        .doesNotContain(wrong);
    assertThat(refused.stdout()).isEmpty();
  }

  /** Sum of {@code granary_requests_total} samples with this method and status, whatever the other labels. */
  private static double requests(String metrics, String method, int status) {
    Pattern p = Pattern.compile("(?m)^granary_requests_total\\{([^}]*)} (\\S+)$");
    double sum = 0;
    for (Matcher m = p.matcher(metrics); m.find(); ) {
      if (m.group(1).contains("method=\"" + method + "\"") && m.group(1).contains("status=\"" + status + "\"")) {
        sum += Double.parseDouble(m.group(2));
      }
    }
    return sum;
  }

  private static List<String> listed(String bucket) throws Exception {
    JsonNode page = ClusterJson.mapper().readTree(Http.get(cluster.endpoint() + "/v1/buckets/" + bucket
        + "?limit=10000").body());
    List<String> names = new ArrayList<>();
    page.path("entries").forEach(e -> names.add(e.path("name").asText()));
    return names;
  }

  private static Result cli(Map<String, String> env, String... args) throws Exception {
    return GranaryCli.run(Duration.ofSeconds(60), env, args);
  }
}
