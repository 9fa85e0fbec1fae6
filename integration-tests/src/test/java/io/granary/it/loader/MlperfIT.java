package io.granary.it.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.granary.clustermap.ClusterJson;
import io.granary.it.support.GranaryCli;
import io.granary.it.support.GranaryCli.Result;
import io.granary.it.support.Http;
import io.granary.it.support.Resources;
import io.granary.it.support.TestCluster;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code granary load --workload} as users run it, a separate process against a real two-target cluster: a tiny
 * ResNet-50 dataset (6 files of 400 samples, 275 MB) generated through the native API, one AU run through S3 and a
 * search through the native API, both with the real 0.224 s compute time and 3 steps per epoch; the same run over
 * plain HTTP from a directory written by {@code --generate-dir}; and bad input failing fast with one line.
 */
class MlperfIT {
  private static final String BUCKET = "mlperf";
  private static final int FILES = 6;
  private static final int SAMPLES_PER_FILE = 400;
  private static final long FILE_BYTES = SAMPLES_PER_FILE * 114_660L;
  /** The dataset every test reads: --generate PUTs what is missing, so each test can be run alone. */
  private static final List<String> DATASET = List.of("--workload", "resnet50", "--files", String.valueOf(FILES),
      "--samples-per-file", String.valueOf(SAMPLES_PER_FILE), "--seed", "3", "--steps-per-epoch", "3");
  private static TestCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("mlperf", 2);
    Http.Reply r = cluster.createBucket(BUCKET);
    assertThat(r.status()).as(r.bodyText()).isEqualTo(201);
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(cluster);
  }

  @Test
  void generateThenRun_twoAccelerators_overS3_jsonHasAuAndEveryByteRead(@TempDir Path dir) throws Exception {
    Path json = dir.resolve("run.json");
    Result r = mlperf("--generate", "--accelerators", "2", "--protocol", "s3", "--access-key",
        cluster.credentials().accessKey(), "--secret-key", cluster.credentials().secretKey(), "--json",
        json.toString());
    System.out.println(r.all()); // kept in the failsafe report: the output users see
    assertThat(r.exit()).as(r.all()).isZero();
    assertThat(r.stdout()).contains("generate: 6 files in bucket mlperf").contains("AU %")
        .contains("Result: resnet50, 2 accelerators");
    assertThat(listed("resnet50/train/")).containsExactlyInAnyOrder("resnet50/train/img_0_of_6.tfrecord",
        "resnet50/train/img_1_of_6.tfrecord", "resnet50/train/img_2_of_6.tfrecord",
        "resnet50/train/img_3_of_6.tfrecord", "resnet50/train/img_4_of_6.tfrecord",
        "resnet50/train/img_5_of_6.tfrecord");

    JsonNode j = ClusterJson.mapper().readTree(json.toFile());
    assertThat(j.path("workload").asText()).isEqualTo("resnet50");
    assertThat(j.path("accelerators").asInt()).isEqualTo(2);
    assertThat(j.path("au").asDouble()).isBetween(0.0, 1.0);
    assertThat(j.path("au_threshold").asDouble()).isEqualTo(0.9);
    assertThat(j.path("steps_per_epoch").asInt()).isEqualTo(3);
    assertThat(j.path("samples_per_sec").asDouble()).isPositive();
    assertThat(j.path("throughput_mib_per_sec").asDouble())
        .isCloseTo(j.path("samples_per_sec").asDouble() * 114_660 / 1048576.0, within(1e-6));
    assertThat(j.path("probes")).hasSize(1);
    // each accelerator takes 3 batches of 400: 3 whole files of its 3, so the run reads the dataset once
    JsonNode get = j.path("get");
    assertThat(get.path("count").asLong()).isEqualTo(FILES);
    assertThat(get.path("bytes").asLong()).isEqualTo(FILES * FILE_BYTES);
    assertThat(get.path("errors").asLong()).isZero();
    assertThat(get.path("latency_us").path("p50").asLong()).isPositive();
    assertThat(j.path("probes").get(0).path("bytes").asLong()).isEqualTo(FILES * FILE_BYTES);
  }

  @Test
  void search_native_answersTheLargestPassingProbe_andAccountsForEveryProbe(@TempDir Path dir) throws Exception {
    Path json = dir.resolve("search.json");
    Result r = mlperf("--generate", "--search", "--max-accelerators", "2", "--json", json.toString());
    assertThat(r.exit()).as(r.all()).isZero();
    assertThat(r.stdout()).contains("search: 1 to 2 accelerators").contains("Search: 1 ");
    JsonNode j = ClusterJson.mapper().readTree(json.toFile());
    assertThat(j.path("search").asBoolean()).isTrue();
    assertThat(j.path("search_limit").asInt()).isEqualTo(2);
    // The answer is the largest passing probe, whatever this machine's speed (no timing assumption here).
    int best = 0;
    for (JsonNode p : j.path("probes")) {
      assertThat(p.path("pass").asBoolean()).isEqualTo(p.path("au").asDouble() >= 0.9);
      if (p.path("pass").asBoolean()) {
        best = Math.max(best, p.path("accelerators").asInt());
      }
    }
    assertThat(j.path("accelerators").asInt()).as(r.all()).isEqualTo(best).isBetween(0, 2);
    assertThat(j.path("pass").asBoolean()).isEqualTo(best > 0);
    long count = 0;
    long bytes = 0;
    for (JsonNode p : j.path("probes")) {
      assertThat(p.path("au").asDouble()).isBetween(0.0, 1.0);
      assertThat(p.path("errors").asLong()).isZero();
      assertThat(p.path("bytes").asLong()).isEqualTo(p.path("gets").asLong() * FILE_BYTES);
      count += p.path("gets").asLong();
      bytes += p.path("bytes").asLong();
    }
    assertThat(j.path("probes").size()).isBetween(1, 2);
    assertThat(j.path("get").path("count").asLong()).isEqualTo(count);
    assertThat(j.path("get").path("bytes").asLong()).isEqualTo(bytes);
    assertThat(j.path("get").path("errors").asLong()).isZero();
  }

  @Test
  void generateDir_thenPlainHttp_readsTheFilesAStaticServerServes(@TempDir Path dir) throws Exception {
    Path www = dir.resolve("www");
    Result gen = load("--protocol", "http", "--endpoint", "http://127.0.0.1:1", "--generate-dir", www.toString(),
        "--generate-only");
    assertThat(gen.exit()).as(gen.all()).isZero();
    assertThat(gen.stdout()).contains("6 written");
    assertThat(Files.size(www.resolve("resnet50/train/img_5_of_6.tfrecord"))).isEqualTo(FILE_BYTES);
    HttpServer server = staticServer(www);
    try {
      Path json = dir.resolve("http.json");
      Result r = load("--protocol", "http", "--endpoint", "http://127.0.0.1:" + server.getAddress().getPort(),
          "--accelerators", "1", "--json", json.toString());
      assertThat(r.exit()).as(r.all()).isZero();
      JsonNode j = ClusterJson.mapper().readTree(json.toFile());
      assertThat(j.path("au").asDouble()).isBetween(0.0, 1.0);
      assertThat(j.path("get").path("count").asLong()).isEqualTo(3); // 3 steps of 400: 3 files
      assertThat(j.path("get").path("bytes").asLong()).isEqualTo(3 * FILE_BYTES);
      assertThat(j.path("get").path("errors").asLong()).isZero();
    } finally {
      server.stop(0);
    }
  }

  @Test
  void badInput_isOneLineOnStderr_nonZeroExit() throws Exception {
    String ep = cluster.endpoint();
    assertOneLine(cli("load", "--endpoint", ep, "--bucket", BUCKET, "--workload", "bert"), "unknown workload 'bert'");
    assertOneLine(cli("load", "--endpoint", ep, "--bucket", BUCKET, "--workload", "resnet50", "--pct-put", "10"),
        "--pct-put does not apply with --workload");
    assertOneLine(cli("load", "--endpoint", ep, "--bucket", BUCKET, "--accelerators", "4"),
        "--accelerators needs --workload");
    assertOneLine(cli("load", "--endpoint", ep, "--bucket", BUCKET, "--workload", "resnet50", "--accelerators", "x"),
        "--accelerators");
    assertOneLine(load("--endpoint", "http://127.0.0.1:" + TestCluster.freePortRange(1), "--bucket", BUCKET),
        "cannot reach");
    assertOneLine(load("--endpoint", ep, "--bucket", "no-such-bucket"), "does not exist");
    assertOneLine(load("--endpoint", ep, "--bucket", BUCKET, "--prefix", "nothing-here"),
        "lacks 6 of 6 dataset files");
    assertOneLine(load("--endpoint", ep, "--bucket", BUCKET, "--accelerators", "4"), "AU needs at least 2");
    assertOneLine(load("--endpoint", ep, "--protocol", "http", "--generate"),
        "--generate PUTs through --protocol native or s3");
  }

  private static void assertOneLine(Result r, String contains) {
    assertThat(r.exit()).as(r.all()).isNotZero();
    assertThat(r.stderr().strip()).as(r.all()).doesNotContain("\n").contains(contains).doesNotContain("Exception");
  }

  /** {@code granary load} with the shared dataset flags, against the cluster's bucket, plus {@code extra}. */
  private static Result mlperf(String... extra) throws Exception {
    List<String> args = new ArrayList<>(List.of("--endpoint", cluster.endpoint(), "--bucket", BUCKET));
    args.addAll(List.of(extra));
    return load(args.toArray(String[]::new));
  }

  /** {@code granary load} with the shared dataset flags plus {@code extra}. */
  private static Result load(String... extra) throws Exception {
    List<String> args = new ArrayList<>(List.of("load"));
    args.addAll(DATASET);
    args.addAll(List.of(extra));
    return cli(args.toArray(String[]::new));
  }

  private static List<String> listed(String prefix) throws Exception {
    JsonNode page = ClusterJson.mapper().readTree(Http.get(cluster.endpoint() + "/v1/buckets/" + BUCKET
        + "?limit=10000&prefix=" + prefix).body());
    List<String> names = new ArrayList<>();
    page.path("entries").forEach(e -> names.add(e.path("name").asText()));
    return names;
  }

  /** GET and HEAD of the files under {@code root} (as nginx would serve them), on a free loopback port. */
  private static HttpServer staticServer(Path root) throws Exception {
    HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
    s.createContext("/", ex -> {
      Path p = root.resolve(ex.getRequestURI().getPath().substring(1)).normalize();
      try (ex) {
        if (!p.startsWith(root) || !Files.isRegularFile(p)) {
          ex.sendResponseHeaders(404, -1);
          return;
        }
        boolean head = ex.getRequestMethod().equals("HEAD");
        ex.sendResponseHeaders(200, head ? -1 : Files.size(p));
        if (!head) {
          try (InputStream in = Files.newInputStream(p); OutputStream out = ex.getResponseBody()) {
            in.transferTo(out);
          }
        }
      }
    });
    s.setExecutor(Executors.newFixedThreadPool(16));
    s.start();
    return s;
  }

  private static Result cli(String... args) throws Exception {
    return GranaryCli.run(Duration.ofSeconds(90), args);
  }
}
