package io.granary.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.ClusterMap;
import io.granary.it.support.Content;
import io.granary.it.support.Http;
import io.granary.it.support.Names;
import io.granary.it.support.Resources;
import io.granary.it.support.SigV4;
import io.granary.it.support.TestCluster;
import io.granary.testkit.S3ProxyServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.ChecksumType;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Scrapes {@code /metrics} of a running cluster's proxy and targets (without credentials or a cluster signature)
 * and checks that the counters move as requests arrive: requests by method and status; for an S3 bucket cached
 * from a real S3 server (S3Proxy), cache misses and hits, fetches, their bytes and latency with
 * {@code provider="aws"}; errors by code; a prefetch job's counters; what a rebalance moves when a target joins;
 * and that the Grafana dashboard queries only series the nodes export and docs/metrics.md describes.
 */
class MetricsIT {
  private static final String BUCKET = "metrics-it";
  private static final String REMOTE = "metrics-remote";
  private static final int OBJECTS = 6;
  private static final int JOB_OBJECTS = 5;
  private static final int JOB_OBJECT_SIZE = 3000;
  private static final int REBALANCE_OBJECTS = 30;
  private static final int REBALANCE_OBJECT_SIZE = 4096;
  /** Series that exist only while a job runs (their counts stay in the by-kind totals). */
  private static final Set<String> WHILE_A_JOB_RUNS = Set.of("granary_job_done_objects", "granary_job_owned_objects");

  private static TestCluster cluster;
  private static S3ProxyServer s3proxy;
  private static S3Client backend;

  @BeforeAll
  static void start() throws Exception {
    Path work = Files.createTempDirectory("metrics-it");
    s3proxy = S3ProxyServer.start(work.resolve("s3proxy"));
    backend = S3Client.builder().endpointOverride(s3proxy.endpoint()).region(Region.US_EAST_1).forcePathStyle(true)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY,
            S3ProxyServer.SECRET_KEY))).build();
    backend.createBucket(b -> b.bucket(REMOTE));
    cluster = TestCluster.start("metrics", 2);
    Http.Reply r = cluster.createBucket(BUCKET);
    assertThat(r.status()).isEqualTo(201);
    Path creds = s3proxy.writeCredentialsFile(work.resolve("credentials"));
    String props = "{\"backend\":{\"endpoint\":\"" + s3proxy.endpoint() + "\",\"pathStyle\":true,"
        + "\"credentialsFile\":\"" + creds.toAbsolutePath() + "\"},\"freshness\":{\"ttl\":\"never\","
        + "\"sync\":false}}";
    r = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint() + "/v1/buckets/" + REMOTE
        + "?provider=aws")).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(props)));
    assertThat(r.status()).as(r.bodyText()).isEqualTo(201);
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(backend, cluster, s3proxy);
  }

  private static String scrape(String baseUrl) throws Exception {
    Http.Reply r = Http.get(baseUrl + "/metrics");
    assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
    assertThat(r.header("content-type")).hasValueSatisfying(v -> assertThat(v).startsWith("text/plain"));
    return r.bodyText();
  }

  /** Sum of {@code granary_requests_total} over nodes for {@code method} and {@code status}. */
  private static double requests(String text, String method, int status) {
    Pattern p = Pattern.compile("^granary_requests_total\\{method=\"" + method + "\",node=\"[^\"]*\",status=\""
        + status + "\"} (\\S+)$", Pattern.MULTILINE);
    double sum = 0;
    for (Matcher m = p.matcher(text); m.find(); ) {
      sum += Double.parseDouble(m.group(1));
    }
    return sum;
  }

  /**
   * Sum over the nodes in {@code text} of the samples of {@code name} (exactly) that carry every label in
   * {@code labels} ({@code key=value} pairs); 0 when there is none.
   */
  private static double sum(String text, String name, String... labels) {
    double total = 0;
    for (String line : text.split("\n")) {
      if (!line.startsWith(name + "{") && !line.startsWith(name + " ")) {
        continue;
      }
      int close = line.lastIndexOf('}');
      String set = close < 0 ? "" : line.substring(name.length() + 1, close);
      boolean all = true;
      for (String kv : labels) {
        int eq = kv.indexOf('=');
        String want = kv.substring(0, eq) + "=\"" + kv.substring(eq + 1) + "\"";
        all &= ("," + set + ",").contains("," + want + ",");
      }
      if (all) {
        total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return total;
  }

  /**
   * The targets' scrape once every AWS counter in {@code moved} has grown since {@code before} by at least its
   * value (within 10 s). A fetch is counted a moment after its client has the last byte, and a scrape reads the
   * counters in no fixed order (the registry keeps them in a hash set), so one counter having moved says nothing of
   * the others: wait for each one asserted.
   */
  private static String awaitMoved(String before, Map<String, Double> moved) throws Exception {
    return awaitTargets(t -> moved.entrySet().stream().allMatch(e ->
        sum(t, e.getKey(), "provider=aws") - sum(before, e.getKey(), "provider=aws") >= e.getValue()));
  }

  /** The targets' scrape once {@code done} holds for it (within 10 s). */
  private static String awaitTargets(Predicate<String> done) throws Exception {
    java.util.concurrent.atomic.AtomicReference<String> text = new java.util.concurrent.atomic.AtomicReference<>();
    try {
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(20)).until(() -> {
            text.set(scrapeTargets());
            return done.test(text.get());
          });
    } catch (org.awaitility.core.ConditionTimeoutException notYet) {
      // the caller's assertions on the last scrape say what is missing
    }
    return text.get();
  }

  private static String scrapeTargets() throws Exception {
    StringBuilder all = new StringBuilder();
    for (String id : cluster.targetIds()) {
      all.append(scrape(cluster.targetUrl(id)));
    }
    return all.toString();
  }

  @Test
  void putAndGet_throughProxy_moveRequestCounters_onProxyAndTargets() throws Exception {
    String proxyBefore = scrape(cluster.endpoint());
    String targetsBefore = scrapeTargets();
    assertThat(proxyBefore).containsPattern("(?m)^granary_cluster_map_version\\{node=\"[^\"]+\"} [1-9]");
    assertThat(targetsBefore).containsPattern("(?m)^granary_cluster_map_version\\{node=\"[^\"]+\"} [1-9]")
        .contains("# TYPE granary_cold_get_fetches_total counter")
        .contains("granary_mountpath_capacity_bytes{");

    byte[] body = "hello metrics".getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < OBJECTS; i++) {
      String url = Names.url(cluster.endpoint(), BUCKET, "obj-" + i);
      Http.Reply put = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(url))
          .PUT(HttpRequest.BodyPublishers.ofByteArray(body)));
      assertThat(put.status()).as(put.bodyText()).isEqualTo(200);
      Http.Reply get = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(url)).GET());
      assertThat(get.status()).isEqualTo(200);
    }

    String proxyAfter = scrape(cluster.endpoint());
    String targetsAfter = scrapeTargets();
    // The proxy redirects each object request (307); the targets serve them (200).
    assertThat(requests(proxyAfter, "PUT", 307) - requests(proxyBefore, "PUT", 307)).isEqualTo(OBJECTS);
    assertThat(requests(proxyAfter, "GET", 307) - requests(proxyBefore, "GET", 307)).isEqualTo(OBJECTS);
    // At least: targets also answer the primary's health checks (GET) and metadata pushes (PUT), and count the
    // first scrape of each (a scrape is counted once its answer is written).
    assertThat(requests(targetsAfter, "PUT", 200) - requests(targetsBefore, "PUT", 200))
        .isGreaterThanOrEqualTo(OBJECTS);
    assertThat(requests(targetsAfter, "GET", 200) - requests(targetsBefore, "GET", 200))
        .isGreaterThanOrEqualTo(OBJECTS + cluster.targetIds().size());
    assertThat(targetsAfter).containsPattern("(?m)^granary_request_body_bytes_total\\{method=\"PUT\",node=\"[^\"]+\"} "
        + "[1-9]");
    assertThat(proxyAfter).containsPattern("(?m)^granary_request_duration_seconds_count\\{method=\"PUT\",node=\""
        + "[^\"]+\"} [1-9]");
  }

  private static Http.Reply getRemote(String name) throws Exception {
    return Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint() + "/v1/objects/" + REMOTE
        + "/" + name + "?provider=aws")).GET());
  }

  @Test
  void remoteGet_coldThenWarm_countsAMissAFetchWithItsLatency_thenAHit() throws Exception {
    byte[] data = Content.bytes(7, 65_536);
    backend.putObject(b -> b.bucket(REMOTE).key("cold/one.bin"), RequestBody.fromBytes(data));
    String before = scrapeTargets();
    assertThat(before).contains("granary_cache_hits_total{").contains("provider=\"gcp\"");

    Http.Reply cold = getRemote("cold/one.bin");
    assertThat(cold.status()).isEqualTo(200);
    assertThat(cold.body()).isEqualTo(data);
    String afterCold = awaitMoved(before, Map.of("granary_cold_get_fetches_total", 1.0,
        "granary_cold_get_bytes_total", (double) data.length, "granary_cold_get_duration_seconds_count", 1.0,
        "granary_cold_get_first_byte_seconds_count", 1.0, "granary_cold_get_loop_reads_total", 1.0));
    assertThat(sum(afterCold, "granary_cache_misses_total", "provider=aws")
        - sum(before, "granary_cache_misses_total", "provider=aws")).isEqualTo(1);
    assertThat(sum(afterCold, "granary_cache_hits_total", "provider=aws"))
        .isEqualTo(sum(before, "granary_cache_hits_total", "provider=aws"));
    assertThat(sum(afterCold, "granary_cold_get_fetches_total", "provider=aws")
        - sum(before, "granary_cold_get_fetches_total", "provider=aws")).isEqualTo(1);
    assertThat(sum(afterCold, "granary_cold_get_bytes_total", "provider=aws")
        - sum(before, "granary_cold_get_bytes_total", "provider=aws")).isEqualTo(data.length);
    assertThat(sum(afterCold, "granary_cold_get_duration_seconds_count", "provider=aws")
        - sum(before, "granary_cold_get_duration_seconds_count", "provider=aws")).isEqualTo(1);
    assertThat(sum(afterCold, "granary_cold_get_first_byte_seconds_count", "provider=aws")
        - sum(before, "granary_cold_get_first_byte_seconds_count", "provider=aws")).isEqualTo(1);
    assertThat(sum(afterCold, "granary_cold_get_duration_seconds_sum", "provider=aws")
        - sum(before, "granary_cold_get_duration_seconds_sum", "provider=aws")).isPositive();
    assertThat(sum(afterCold, "granary_cold_get_fetches_total", "provider=gcp")).isZero();
    // S3Proxy is a plain-HTTP endpoint: the GET's first remote read went out from the target's event loop.
    assertThat(sum(afterCold, "granary_cold_get_loop_reads_total", "provider=aws")
        - sum(before, "granary_cold_get_loop_reads_total", "provider=aws")).isEqualTo(1);
    assertThat(sum(afterCold, "granary_cold_get_unverified_total", "provider=aws"))
        .as("a single-part object's ETag is its MD5").isEqualTo(sum(before, "granary_cold_get_unverified_total",
            "provider=aws"));

    Http.Reply warm = getRemote("cold/one.bin");
    assertThat(warm.body()).isEqualTo(data);
    String afterWarm = scrapeTargets();
    assertThat(sum(afterWarm, "granary_cache_hits_total", "provider=aws")
        - sum(afterCold, "granary_cache_hits_total", "provider=aws")).isEqualTo(1);
    assertThat(sum(afterWarm, "granary_cache_misses_total", "provider=aws"))
        .isEqualTo(sum(afterCold, "granary_cache_misses_total", "provider=aws"));
    assertThat(sum(afterWarm, "granary_cold_get_fetches_total", "provider=aws"))
        .isEqualTo(sum(afterCold, "granary_cold_get_fetches_total", "provider=aws"));
  }

  @Test
  void remoteGet_ofAMultipartUploadWithoutAWholeObjectChecksum_isCountedUnverified() throws Exception {
    String key = "cold/multipart.bin";
    byte[] part = Content.bytes(8, 5 * 1024 * 1024);
    String id = backend.createMultipartUpload(b -> b.bucket(REMOTE).key(key)).uploadId();
    String e1 = backend.uploadPart(b -> b.bucket(REMOTE).key(key).uploadId(id).partNumber(1),
        RequestBody.fromBytes(part)).eTag();
    String e2 = backend.uploadPart(b -> b.bucket(REMOTE).key(key).uploadId(id).partNumber(2),
        RequestBody.fromBytes(part)).eTag();
    backend.completeMultipartUpload(b -> b.bucket(REMOTE).key(key).uploadId(id)
        .multipartUpload(u -> u.parts(p -> p.partNumber(1).eTag(e1), p -> p.partNumber(2).eTag(e2))));
    HeadObjectResponse head = backend.headObject(b -> b.bucket(REMOTE).key(key).checksumMode(ChecksumMode.ENABLED));
    assertThat(head.eTag()).contains("-");
    assertThat(head.checksumType()).as("no whole-object checksum").isNotEqualTo(ChecksumType.FULL_OBJECT);
    String before = scrapeTargets();

    Http.Reply cold = getRemote(key);
    assertThat(cold.status()).isEqualTo(200);
    byte[] whole = Arrays.copyOf(part, 2 * part.length);
    System.arraycopy(part, 0, whole, part.length, part.length);
    assertThat(Http.sha256(cold.body())).isEqualTo(Http.sha256(whole));
    String after = awaitMoved(before, Map.of("granary_cold_get_fetches_total", 1.0,
        "granary_cold_get_unverified_total", 1.0));
    assertThat(sum(after, "granary_cold_get_fetches_total", "provider=aws")
        - sum(before, "granary_cold_get_fetches_total", "provider=aws")).isEqualTo(1);
    assertThat(sum(after, "granary_cold_get_unverified_total", "provider=aws")
        - sum(before, "granary_cold_get_unverified_total", "provider=aws")).isEqualTo(1);
  }

  @Test
  void errors_areCountedByTheirCode_whereTheyAreProduced() throws Exception {
    String proxyBefore = scrape(cluster.endpoint());
    String targetsBefore = scrapeTargets();

    Http.Reply nativeMissing = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(),
        BUCKET, "no/such-object"))).GET());
    assertThat(nativeMissing.status()).isEqualTo(404);
    assertThat(nativeMissing.bodyText()).contains("\"ObjectNotFound\"");
    String s3Url = cluster.endpoint() + "/" + BUCKET + "/no/such-key";
    Http.Reply s3Missing = Http.send(Http.NO_FOLLOW, SigV4.sign(HttpRequest.newBuilder(URI.create(s3Url)).GET(),
        "GET", s3Url, new byte[0], cluster.credentials().accessKey(), cluster.credentials().secretKey()));
    assertThat(s3Missing.status()).isEqualTo(404);
    assertThat(s3Missing.bodyText()).contains("<Code>NoSuchKey</Code>");
    Http.Reply unsigned = Http.get(s3Url);
    assertThat(unsigned.status()).isEqualTo(403);

    String proxyAfter = scrape(cluster.endpoint());
    String targetsAfter = scrapeTargets();
    // The owning target produced both 404s (the proxy redirected the native GET and relayed the S3 one as it came).
    assertThat(sum(targetsAfter, "granary_errors_total", "code=ObjectNotFound")
        - sum(targetsBefore, "granary_errors_total", "code=ObjectNotFound")).isEqualTo(1);
    assertThat(sum(targetsAfter, "granary_errors_total", "code=NoSuchKey")
        - sum(targetsBefore, "granary_errors_total", "code=NoSuchKey")).isEqualTo(1);
    assertThat(sum(proxyAfter, "granary_errors_total", "code=NoSuchKey"))
        .isEqualTo(sum(proxyBefore, "granary_errors_total", "code=NoSuchKey"));
    // An unsigned GET of an object is relayed marked anonymous (only the owner knows whether the object is
    // public-read): the owning target refused it, and the proxy counted nothing.
    assertThat(sum(targetsAfter, "granary_errors_total", "code=AccessDenied")
        - sum(targetsBefore, "granary_errors_total", "code=AccessDenied")).isEqualTo(1);
    assertThat(sum(proxyAfter, "granary_errors_total", "code=AccessDenied"))
        .isEqualTo(sum(proxyBefore, "granary_errors_total", "code=AccessDenied"));
  }

  @Test
  void prefetchJob_movesTheJobCounters_ofEveryTarget() throws Exception {
    for (int i = 0; i < JOB_OBJECTS; i++) {
      int seed = i;
      backend.putObject(b -> b.bucket(REMOTE).key("job/obj-" + seed),
          RequestBody.fromBytes(Content.bytes(100 + seed, JOB_OBJECT_SIZE)));
    }
    String before = scrapeTargets();
    assertThat(before).contains("granary_jobs_running{kind=\"prefetch\"");

    Http.Reply started = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint() + "/v1/jobs"))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
            "{\"kind\":\"prefetch\",\"bucket\":\"s3://" + REMOTE + "\",\"prefix\":\"job/\"}")));
    assertThat(started.status()).as(started.bodyText()).isEqualTo(201);
    String id = ClusterJson.mapper().readTree(started.body()).path("id").asText();
    String state = "running";
    for (int i = 0; i < 10 && state.equals("running"); i++) {
      state = ClusterJson.mapper().readTree(Http.get(cluster.endpoint() + "/v1/jobs/" + id + "?wait=20s").body())
          .path("state").asText();
    }
    assertThat(state).isEqualTo("succeeded");

    String after = scrapeTargets();
    int targets = cluster.targetIds().size();
    assertThat(sum(after, "granary_jobs_finished_total", "kind=prefetch", "state=succeeded")
        - sum(before, "granary_jobs_finished_total", "kind=prefetch", "state=succeeded")).isEqualTo(targets);
    assertThat(sum(after, "granary_job_objects_total", "kind=prefetch", "outcome=fetched")
        - sum(before, "granary_job_objects_total", "kind=prefetch", "outcome=fetched")).isEqualTo(JOB_OBJECTS);
    assertThat(sum(after, "granary_job_bytes_total", "kind=prefetch")
        - sum(before, "granary_job_bytes_total", "kind=prefetch")).isEqualTo(JOB_OBJECTS * JOB_OBJECT_SIZE);
    assertThat(sum(after, "granary_jobs_running", "kind=prefetch")).isZero();
    assertThat(after).doesNotContain("job=\"" + id + "\""); // per-job series only while it runs
    // Job fills go through the cold path: fetches, but no GET, so no cache miss.
    assertThat(sum(after, "granary_cold_get_fetches_total", "provider=aws")
        - sum(before, "granary_cold_get_fetches_total", "provider=aws")).isEqualTo(JOB_OBJECTS);
    assertThat(sum(after, "granary_cache_misses_total", "provider=aws"))
        .isEqualTo(sum(before, "granary_cache_misses_total", "provider=aws"));
    // A job's fill has no event loop to send from: its reads go on the cold pool.
    assertThat(sum(after, "granary_cold_get_loop_reads_total", "provider=aws"))
        .isEqualTo(sum(before, "granary_cold_get_loop_reads_total", "provider=aws"));
  }

  /** The cluster map once it is settled (no rebalance, or the latest finished), within 90 s. */
  private static ClusterMap awaitSettled() {
    return await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
        .until(cluster::map, ClusterMap::settled);
  }

  /** The value of {@code name} on the one node {@code text} was scraped from. */
  private static double only(String text, String name) {
    Matcher m = Pattern.compile("(?m)^" + name + "\\{node=\"[^\"]+\"} (\\S+)$").matcher(text);
    assertThat(m.find()).as(name + " in the scrape").isTrue();
    return Double.parseDouble(m.group(1));
  }

  /**
   * A target joins: the primary starts a rebalance in the very map version that places objects on it, the old
   * targets send it what it owns now, and once the map says the rebalance finished every count agrees: the old
   * targets sent (objects and bytes) what the newcomer received, and only it received (adding a node to HRW moves
   * objects only to that node); nothing failed, no walk runs, nothing is left to move or hand on, and every node
   * shows the map's rebalance.
   */
  @Test
  void rebalance_whenATargetJoins_countsWhatMoves_onSendersAndReceiver() throws Exception {
    ClusterMap start = awaitSettled(); // the targets joining at the cluster's start may have started rebalances
    byte[] body = Content.bytes(11, REBALANCE_OBJECT_SIZE);
    for (int i = 0; i < REBALANCE_OBJECTS; i++) {
      Http.Reply put = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET,
          "reb/obj-" + i))).PUT(HttpRequest.BodyPublishers.ofByteArray(body)));
      assertThat(put.status()).as(put.bodyText()).isEqualTo(200);
    }
    String before = scrapeTargets();
    assertThat(before).contains("# TYPE granary_rebalance_sent_bytes_total counter")
        .contains("# TYPE granary_rebalance_walking gauge");

    String added = cluster.local().addTarget(List.of());
    ClusterMap map = awaitSettled();
    assertThat(map.rebalance()).isNotNull();
    long id = map.rebalance().id();
    assertThat(id).isGreaterThan(start.rebalance() == null ? 0 : start.rebalance().id());
    int moved = 0;
    for (int i = 0; i < REBALANCE_OBJECTS; i++) {
      moved += cluster.owner(BUCKET, "reb/obj-" + i).id().equals(added) ? 1 : 0;
    }
    assertThat(moved).as("the newcomer owns some of %s names", REBALANCE_OBJECTS).isPositive();

    String after = scrapeTargets();
    double sent = sum(after, "granary_rebalance_sent_objects_total")
        - sum(before, "granary_rebalance_sent_objects_total");
    double sentBytes = sum(after, "granary_rebalance_sent_bytes_total")
        - sum(before, "granary_rebalance_sent_bytes_total");
    double received = sum(after, "granary_rebalance_received_objects_total")
        - sum(before, "granary_rebalance_received_objects_total");
    double receivedBytes = sum(after, "granary_rebalance_received_bytes_total")
        - sum(before, "granary_rebalance_received_bytes_total");
    // Objects other tests left (and cached remote ones) move too: at least ours.
    assertThat(sent).isGreaterThanOrEqualTo(moved).isEqualTo(received);
    assertThat(sentBytes).isGreaterThanOrEqualTo((double) moved * REBALANCE_OBJECT_SIZE).isEqualTo(receivedBytes);
    String newcomer = scrape(cluster.targetUrl(added));
    assertThat(only(newcomer, "granary_rebalance_received_objects_total")).isEqualTo(received);
    assertThat(only(newcomer, "granary_rebalance_received_bytes_total")).isEqualTo(receivedBytes);
    assertThat(only(newcomer, "granary_rebalance_sent_objects_total")).isZero();
    assertThat(sum(after, "granary_rebalance_failures_total")).isEqualTo(sum(before,
        "granary_rebalance_failures_total"));
    assertThat(sum(after, "granary_rebalance_walking")).isZero();
    assertThat(sum(after, "granary_rebalance_remaining_bytes")).isZero();
    assertThat(sum(after, "granary_rebalance_pending_handoffs")).isZero();
    for (String t : cluster.targetIds()) {
      assertThat(only(scrape(cluster.targetUrl(t)), "granary_rebalance_id")).as(t).isEqualTo(id);
    }
    String proxy = scrape(cluster.endpoint());
    assertThat(only(proxy, "granary_cluster_rebalance_id")).isEqualTo(id);
    assertThat(only(proxy, "granary_cluster_rebalance_running")).isZero();
    assertThat(only(proxy, "granary_cluster_rebalance_settled")).isEqualTo(1);
  }

  /**
   * Every series a query of deploy/grafana/granary-dashboard.json names is in a scrape of the cluster's nodes
   * (but the per-job series, which exist only while a job runs) and in docs/metrics.md.
   */
  @Test
  void dashboard_queriesOnlySeriesTheNodesExport_andTheDocsDescribe() throws Exception {
    Path repo = Path.of(System.getProperty("granary.repo.dir", ".."));
    JsonNode dashboard = ClusterJson.mapper().readTree(repo.resolve("deploy/grafana/granary-dashboard.json").toFile());
    Set<String> queried = new TreeSet<>();
    for (JsonNode panel : dashboard.path("panels")) {
      for (JsonNode t : panel.path("targets")) {
        Matcher m = Pattern.compile("granary_[a-z0-9_]+").matcher(t.path("expr").asText());
        while (m.find()) {
          queried.add(m.group());
        }
      }
    }
    assertThat(queried).contains("granary_rebalance_sent_bytes_total", "granary_rebalance_received_bytes_total",
        "granary_rebalance_remaining_bytes", "granary_cluster_rebalance_running", "granary_rebalance_walking",
        "granary_rebalance_failures_total", "granary_rebalance_pending_handoffs");
    String exported = scrape(cluster.endpoint()) + scrapeTargets();
    String docs = Files.readString(repo.resolve("docs/metrics.md"));
    for (String name : queried) {
      if (!WHILE_A_JOB_RUNS.contains(name)) {
        assertThat(exported).as("a node exports " + name).containsPattern("(?m)^" + name + "[{ ]");
      }
      String base = name.replaceAll("_(bucket|sum|count)$", "");
      assertThat(docs).as("docs/metrics.md describes " + base).contains("`" + base + "`");
    }
  }
}
