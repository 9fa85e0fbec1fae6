package io.granary.it.loader;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.it.support.GranaryCli;
import io.granary.it.support.GranaryCli.Result;
import io.granary.it.support.Http;
import io.granary.it.support.Names;
import io.granary.it.support.Resources;
import io.granary.it.support.TestCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code granary load} as users run it, a separate process against a real two-target cluster: a verified mixed
 * load through the native API and through S3, their JSON merged, a PUT-only run that cleans up after itself,
 * and bad input failing fast with one line.
 */
class LoaderIT {
  private static final String BUCKET = "loadtest";
  private static TestCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("loader", 2);
    Http.Reply r = cluster.createBucket(BUCKET);
    assertThat(r.status()).as(r.bodyText()).isEqualTo(201);
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(cluster);
  }

  @Test
  void mixedLoad_nativeThenS3_verifiedWithoutErrors_andMerged(@TempDir Path dir) throws Exception {
    Path nativeJson = dir.resolve("native.json");
    Result n = load("--protocol", "native", "--loader-id", "0", "--loaders", "2", "--seed", "1",
        "--json", nativeJson.toString());
    System.out.println(n.all()); // kept in the failsafe report: the table users see
    assertThat(n.exit()).as(n.all()).isZero();
    assertThat(n.stdout()).contains("GET").contains("PUT").contains("Actual run duration");
    JsonNode nj = checked(nativeJson);
    assertThat(listed("loader-0/")).as("every PUT is stored").hasSize(nj.path("put").path("count").asInt());
    String one = listed("loader-0/").get(0);
    assertThat(Http.get(Names.url(cluster.endpoint(), BUCKET, one)).status()).isEqualTo(200);

    Path s3Json = dir.resolve("s3.json");
    Result s = load("--protocol", "s3", "--loader-id", "1", "--loaders", "2", "--seed", "2",
        "--access-key", cluster.credentials().accessKey(), "--secret-key", cluster.credentials().secretKey(),
        "--json", s3Json.toString());
    System.out.println(s.all());
    assertThat(s.exit()).as(s.all()).isZero();
    JsonNode sj = checked(s3Json);
    assertThat(listed("loader-1/")).hasSize(sj.path("put").path("count").asInt());

    Path merged = dir.resolve("merged.json");
    Result m = cli("load", "merge", nativeJson.toString(), s3Json.toString(), "--json", merged.toString());
    assertThat(m.exit()).as(m.all()).isZero();
    JsonNode mj = ClusterJson.mapper().readTree(merged.toFile());
    for (String op : List.of("get", "put")) {
      assertThat(mj.path(op).path("count").asLong())
          .isEqualTo(nj.path(op).path("count").asLong() + sj.path(op).path("count").asLong());
      assertThat(mj.path(op).path("latency_us").path("max").asLong()).isEqualTo(Math.max(
          nj.path(op).path("latency_us").path("max").asLong(), sj.path(op).path("latency_us").path("max").asLong()));
    }
    assertThat(mj.path("loaders").asInt()).isEqualTo(2);
  }

  @Test
  void putBudgetRun_withCleanup_leavesNothingBehind(@TempDir Path dir) throws Exception {
    Path json = dir.resolve("puts.json");
    Result r = cli("load", "--endpoint", cluster.endpoint(), "--bucket", BUCKET, "--duration", "0", "--pct-put",
        "100", "--max-puts", "25", "--workers", "3", "--min-size", "1KiB", "--max-size", "8KiB", "--loader-id", "5",
        "--loaders", "6", "--cleanup", "--interval", "0", "--json", json.toString());
    assertThat(r.exit()).as(r.all()).isZero();
    JsonNode j = ClusterJson.mapper().readTree(json.toFile());
    assertThat(j.path("put").path("count").asInt()).isEqualTo(25);
    assertThat(j.has("get")).isFalse();
    assertThat(r.stdout()).contains("cleanup: deleted 25 of 25");
    assertThat(listed("loader-5/")).isEmpty();
  }

  @Test
  void unknownBucket_failsFastWithOneLine() throws Exception {
    Result r = cli("load", "--endpoint", cluster.endpoint(), "--bucket", "no-such-bucket", "--pct-put", "50",
        "--duration", "5s");
    assertThat(r.exit()).isNotZero();
    assertThat(r.stderr().strip()).doesNotContain("\n").contains("no-such-bucket").contains("does not exist");
    assertThat(r.stdout()).isEmpty();
  }

  @Test
  void badSize_andUnreachableEndpoint_areOneLineErrors() throws Exception {
    Result size = cli("load", "--endpoint", cluster.endpoint(), "--bucket", BUCKET, "--max-size", "10XB");
    assertThat(size.exit()).isNotZero();
    assertThat(size.stderr().strip()).doesNotContain("\n").contains("--max-size").contains("10XB");
    Result down = cli("load", "--endpoint", "http://127.0.0.1:" + TestCluster.freePortRange(1), "--bucket", BUCKET);
    assertThat(down.exit()).isNotZero();
    assertThat(down.stderr().strip()).doesNotContain("\n").contains("cannot reach");
  }

  /** The standard run: ~5 s, 4 workers, 50% PUTs of 4-64 KiB, every GET verified. */
  private static Result load(String... extra) throws Exception {
    List<String> args = new ArrayList<>(List.of("load", "--endpoint", cluster.endpoint(), "--bucket", BUCKET,
        "--duration", "5s", "--workers", "4", "--pct-put", "50", "--min-size", "4KiB", "--max-size", "64KiB",
        "--verify", "--interval", "1s"));
    args.addAll(List.of(extra));
    return cli(args.toArray(String[]::new));
  }

  /** Counts above zero, no errors, and GETs verified (all objects read were PUT by the run). */
  private static JsonNode checked(Path json) throws Exception {
    JsonNode j = ClusterJson.mapper().readTree(json.toFile());
    for (String op : List.of("get", "put")) {
      assertThat(j.path(op).path("count").asLong()).as("%s count in %s", op, j).isPositive();
      assertThat(j.path(op).path("errors").asLong()).as("%s errors in %s", op, j).isZero();
      assertThat(j.path(op).path("bytes").asLong()).isPositive();
      assertThat(j.path(op).path("throughput_bytes_per_sec").asDouble()).isPositive();
      assertThat(j.path(op).path("latency_us").path("p99").asLong()).isPositive();
    }
    assertThat(j.path("get").path("verified").asLong()).isEqualTo(j.path("get").path("count").asLong());
    assertThat(j.path("duration_s").asDouble()).isBetween(4.5, 30.0);
    return j;
  }

  private static List<String> listed(String prefix) throws Exception {
    JsonNode page = ClusterJson.mapper().readTree(Http.get(cluster.endpoint() + "/v1/buckets/" + BUCKET
        + "?limit=10000&prefix=" + prefix).body());
    List<String> names = new ArrayList<>();
    page.path("entries").forEach(e -> names.add(e.path("name").asText()));
    return names;
  }

  private static Result cli(String... args) throws Exception {
    return GranaryCli.run(Duration.ofSeconds(60), args);
  }
}
