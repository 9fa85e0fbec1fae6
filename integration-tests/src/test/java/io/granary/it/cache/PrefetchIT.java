package io.granary.it.cache;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.it.support.Content;
import io.granary.it.support.GranaryCli;
import io.granary.it.support.Http;
import io.granary.it.support.Resources;
import io.granary.it.support.TestCluster;
import io.granary.testkit.FaultProxy;
import io.granary.testkit.S3ProxyServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Prefetch jobs against a real S3 server: each target fetches the objects it owns once, a second run finds them
 * cached, missing names are reported by name, and the CLI waits with progress and exits non-zero on failures.
 */
class PrefetchIT {
  private static final String BUCKET = "prefetch-src";
  private static final int SHARDS = 24;
  private static S3ProxyServer s3proxy;
  private static FaultProxy counter;
  private static TestCluster cluster;
  private static S3Client backend;

  @BeforeAll
  static void start() throws Exception {
    Path work = Files.createTempDirectory("prefetch");
    s3proxy = S3ProxyServer.start(work.resolve("s3proxy"));
    counter = FaultProxy.start(s3proxy.endpoint());
    backend = RemoteBuckets.backendClient(s3proxy);
    backend.createBucket(b -> b.bucket(BUCKET));
    for (int i = 0; i < SHARDS; i++) {
      String key = String.format("train/shard-%04d.tar", i);
      backend.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(Content.bytes(100 + i, 50_000 + i)));
    }
    for (int i = 0; i < 4; i++) {
      String key = String.format("cli/shard-%04d.tar", i);
      backend.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(Content.bytes(200 + i, 10_000)));
    }
    backend.putObject(b -> b.bucket(BUCKET).key("val/a"), RequestBody.fromBytes(new byte[1000]));
    for (int i = 0; i < 8; i++) {
      String key = "slow/obj-" + i;
      backend.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(new byte[2000]));
    }
    cluster = TestCluster.start("prefetch", 2);
    Path creds = s3proxy.writeCredentialsFile(work.resolve("credentials"));
    Http.Reply r = RemoteBuckets.register(cluster, "aws", BUCKET, RemoteBuckets.s3Props(counter.endpoint(), creds,
        "never", false));
    assertThat(r.status()).as(r.bodyText()).isEqualTo(201);
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(backend, cluster, counter, s3proxy);
  }

  private static JsonNode post(String json) throws Exception {
    Http.Reply r = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint() + "/v1/jobs"))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)));
    assertThat(r.status()).as(r.bodyText()).isEqualTo(201);
    return ClusterJson.mapper().readTree(r.body());
  }

  private static JsonNode await(String id) throws Exception {
    for (int i = 0; i < 10; i++) {
      JsonNode s = ClusterJson.mapper().readTree(Http.get(cluster.endpoint() + "/v1/jobs/" + id + "?wait=20s").body());
      if (!s.path("state").asText().equals("running")) {
        return s;
      }
    }
    throw new AssertionError("job " + id + " did not end");
  }

  private static long gets(String prefix) {
    return counter.count(r -> r.method().equals("GET") && r.pathAndQuery().startsWith("/" + BUCKET + "/" + prefix));
  }

  private static List<String> cached(String prefix) throws Exception {
    List<String> names = new ArrayList<>();
    JsonNode page = ClusterJson.mapper().readTree(Http.get(cluster.endpoint() + "/v1/buckets/" + BUCKET
        + "?provider=aws&cached=true&prefix=" + prefix).body());
    page.path("entries").forEach(e -> names.add(e.path("name").asText()));
    return names;
  }

  @Test
  void prefixJob_fetchesEveryObjectOnce_andASecondRunFindsThemCached() throws Exception {
    JsonNode first = await(post("{\"kind\":\"prefetch\",\"bucket\":\"s3://" + BUCKET + "\",\"prefix\":\"train/\"}")
        .path("id").asText());
    assertThat(first.path("state").asText()).isEqualTo("succeeded");
    assertThat(first.path("objects").path("fetched").asLong()).isEqualTo(SHARDS);
    assertThat(first.path("objects").path("failed").asLong()).isZero();
    assertThat(cached("train/")).hasSize(SHARDS);
    assertThat(gets("train/shard-")).isEqualTo(SHARDS);

    JsonNode second = await(post("{\"kind\":\"prefetch\",\"bucket\":\"s3://" + BUCKET + "\",\"prefix\":\"train/\"}")
        .path("id").asText());
    assertThat(second.path("state").asText()).isEqualTo("succeeded");
    assertThat(second.path("objects").path("cached").asLong()).isEqualTo(SHARDS);
    assertThat(second.path("objects").path("fetched").asLong()).isZero();
    assertThat(gets("train/shard-")).as("no object fetched twice").isEqualTo(SHARDS);
    // A GET after prefetch is warm: no backend read.
    assertThat(RemoteBuckets.get(cluster, "aws", BUCKET, "train/shard-0007.tar", null).body())
        .isEqualTo(Content.bytes(107, 50_007));
    assertThat(gets("train/shard-")).isEqualTo(SHARDS);
  }

  @Test
  void namesJob_reportsMissingObjectsByName_andFails() throws Exception {
    JsonNode s = await(post("{\"kind\":\"prefetch\",\"bucket\":\"s3://" + BUCKET
        + "\",\"names\":[\"val/a\",\"val/missing-1\",\"val/missing-2\"]}").path("id").asText());
    assertThat(s.path("state").asText()).isEqualTo("failed");
    assertThat(s.path("objects").path("failed").asLong()).isEqualTo(2);
    List<String> failed = new ArrayList<>();
    s.path("failures").forEach(f -> failed.add(f.path("name").asText()));
    assertThat(failed).containsExactlyInAnyOrder("val/missing-1", "val/missing-2");
    assertThat(cached("val/")).containsExactly("val/a");
  }

  @Test
  void aRunningJob_isAbortedPromptly_andStopsFetching() throws Exception {
    // Each backend GET of these objects stalls 1.5 s; one fill at a time per target keeps the job running.
    counter.inject(r -> r.method().equals("GET") && r.pathAndQuery().startsWith("/" + BUCKET + "/slow/"),
        new FaultProxy.Fault.Stall(Duration.ofMillis(1500), 0), -1);
    try {
      String id = post("{\"kind\":\"prefetch\",\"bucket\":\"s3://" + BUCKET
          + "\",\"prefix\":\"slow/\",\"concurrency\":1}").path("id").asText();
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
          .until(() -> gets("slow/") > 0); // the job is fetching
      Http.Reply abort = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint()
          + "/v1/jobs/" + id)).DELETE());
      assertThat(abort.status()).as(abort.bodyText()).isEqualTo(200);
      JsonNode s = await(id);
      assertThat(s.path("state").asText()).isEqualTo("aborted");
      assertThat(s.path("objects").path("done").asLong()).isLessThan(8);
      long fetchedAtEnd = gets("slow/");
      // A negative claim needs a span to hold over: longer than a stalled fetch (1.5 s), so one would show.
      org.awaitility.Awaitility.await("no fills start after the abort").during(Duration.ofSeconds(2))
          .atMost(Duration.ofSeconds(4)).pollInterval(Duration.ofMillis(100))
          .until(() -> gets("slow/") <= fetchedAtEnd);
    } finally {
      counter.clearFaults();
    }
  }

  @Test
  void badRequests_areClear400s_and404s() throws Exception {
    Http.Reply local = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint() + "/v1/jobs"))
        .POST(HttpRequest.BodyPublishers.ofString("{\"kind\":\"prefetch\",\"bucket\":\"s3://nope\",\"prefix\":\"\"}")));
    assertThat(local.status()).isEqualTo(404);
    Http.Reply both = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint() + "/v1/jobs"))
        .POST(HttpRequest.BodyPublishers.ofString("{\"kind\":\"prefetch\",\"bucket\":\"s3://" + BUCKET
            + "\",\"prefix\":\"a\",\"template\":\"b{0..1}\"}")));
    assertThat(both.status()).isEqualTo(400);
    Http.Reply malformed = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint()
        + "/v1/jobs")).POST(HttpRequest.BodyPublishers.ofString("{\"kind\":")));
    assertThat(malformed.status()).isEqualTo(400);
    assertThat(Http.get(cluster.endpoint() + "/v1/jobs/pf-000000000000").status()).isEqualTo(404);
  }

  @Test
  void cliTemplatePrefetch_waitsWithProgress_andExitsNonZeroWhenSomethingFailed() throws Exception {
    Result ok = cli("prefetch", "s3://" + BUCKET, "--template", "cli/shard-{0000..0003}.tar", "--wait");
    assertThat(ok.exit()).as(ok.output()).isZero();
    Result bad = cli("prefetch", "s3://" + BUCKET, "--template", "cli/shard-{0098..0099}.tar", "--wait");
    assertThat(bad.exit()).as(bad.output()).isNotZero();
    assertThat(bad.output()).contains("cli/shard-0098.tar");
    assertThat(cached("cli/")).hasSize(4);
  }

  @Test
  void cliPrefetchAndJobShow_takeTheProxyAsCluster_asTheBucketCommandsDo() throws Exception {
    Result started = cliAt("--cluster", "prefetch", "s3://" + BUCKET, "--names", "cli/shard-0000.tar", "--wait");
    assertThat(started.exit()).as(started.output()).isZero();
    Result jobs = cliAt("--cluster", "job", "show");
    assertThat(jobs.exit()).as(jobs.output()).isZero();
    assertThat(jobs.output()).contains("prefetch").contains("succeeded");
  }

  private record Result(int exit, String output) {
  }

  private static Result cli(String... args) throws Exception {
    return cliAt("--endpoint", args);
  }

  /** Runs {@code granary ARGS OPTION PROXY_URL}: the proxy given with {@code option}. */
  private static Result cliAt(String option, String... args) throws Exception {
    List<String> granaryArgs = new ArrayList<>(List.of(args));
    granaryArgs.addAll(List.of(option, cluster.endpoint()));
    List<String> cmd = GranaryCli.commandLine(granaryArgs);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Thread reader = new Thread(() -> {
      try {
        p.getInputStream().transferTo(out);
      } catch (IOException ignored) {
        // process ended
      }
    });
    reader.start();
    if (!p.waitFor(90, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("granary " + String.join(" ", args) + " did not end: " + out);
    }
    reader.join(5000);
    return new Result(p.exitValue(), out.toString(StandardCharsets.UTF_8));
  }
}
