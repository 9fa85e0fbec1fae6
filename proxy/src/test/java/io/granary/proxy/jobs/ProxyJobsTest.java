package io.granary.proxy.jobs;

import io.granary.common.error.NoSuchJobException;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeRole;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketMetadata;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.clustermap.bucket.Provider;
import io.granary.common.error.ApiException;
import io.granary.common.error.BadRequestException;
import io.granary.common.error.BucketNotFoundException;
import io.granary.common.error.ConflictException;
import io.granary.common.membership.ClusterMetadata;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.MetadataFiles;
import java.net.ConnectException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProxyJobsTest {
  private static final String UUID = "c0ffee00-0000-4000-8000-000000000003";
  private static final Instant T0 = Snapshots.T0;

  @TempDir
  Path tmp;
  private ClusterMetadataHolder holder;
  private FakeTargets fake;
  private ScheduledExecutorService timer;
  private ProxyJobs jobs;

  /** Targets as in-memory job tables; a target in {@code down} fails every call as if unreachable. */
  static final class FakeTargets implements TargetJobClient {
    final Map<String, Map<String, TargetSnapshot>> tables = new ConcurrentHashMap<>();
    final Set<String> down = ConcurrentHashMap.newKeySet();
    final List<String> aborts = new CopyOnWriteArrayList<>();
    final List<TargetJobSpec> started = new CopyOnWriteArrayList<>();

    private Map<String, TargetSnapshot> table(Node t) {
      return tables.computeIfAbsent(t.id(), k -> new ConcurrentHashMap<>());
    }

    private <T> CompletableFuture<T> unreachable(Node t) {
      return CompletableFuture.failedFuture(new CompletionException(new ConnectException("Connection refused")));
    }

    void put(TargetSnapshot s) {
      tables.computeIfAbsent(s.target(), k -> new ConcurrentHashMap<>()).put(s.id(), s);
    }

    @Override
    public CompletableFuture<TargetSnapshot> start(Node t, TargetJobSpec spec) {
      if (down.contains(t.id())) {
        return unreachable(t);
      }
      started.add(spec);
      TargetSnapshot s = Snapshots.of(spec.id(), t.id(), "running", 10, 0, 0, 0, 0, spec.targets(), null);
      table(t).put(spec.id(), s);
      return CompletableFuture.completedFuture(s);
    }

    @Override
    public CompletableFuture<Optional<TargetSnapshot>> get(Node t, String id) {
      return down.contains(t.id()) ? unreachable(t) : CompletableFuture.completedFuture(
          Optional.ofNullable(table(t).get(id)));
    }

    @Override
    public CompletableFuture<List<TargetSnapshot>> list(Node t) {
      return down.contains(t.id()) ? unreachable(t) : CompletableFuture.completedFuture(
          new ArrayList<>(table(t).values()));
    }

    @Override
    public CompletableFuture<Optional<TargetSnapshot>> abort(Node t, String id) {
      if (down.contains(t.id())) {
        return unreachable(t);
      }
      aborts.add(t.id() + ":" + id);
      TargetSnapshot s = table(t).get(id);
      if (s != null && s.running()) {
        s = Snapshots.of(id, t.id(), "aborted", 10, s.fetched(), 0, 0, 0, s.participants(), T0.plusSeconds(5));
        table(t).put(id, s);
      }
      return CompletableFuture.completedFuture(Optional.ofNullable(s));
    }
  }

  private static Node target(String id, NodeState state) {
    return new Node(id, NodeRole.TARGET, "http://127.0.0.1:9" + id.substring(1), state, 1);
  }

  private void cluster(Node... targets) {
    ClusterMap m = holder.snapshot().map(ClusterMetadataHolder.Snapshot::map).orElse(ClusterMap.bootstrap(UUID,
        new Node("p1", NodeRole.PROXY, "http://127.0.0.1:51080", NodeState.ACTIVE, 1), T0));
    for (Node t : targets) {
      m = m.withNode(t);
    }
    BucketMetadata bmd = BucketMetadata.empty(UUID)
        .with(new BucketProps(new Bucket(Provider.AWS, "data"), "b1", ChecksumType.XXHASH64, T0, null, null))
        .with(new BucketProps(Bucket.local("scratch"), "b2", ChecksumType.XXHASH64, T0));
    holder.apply(new ClusterMetadata(m, bmd));
  }

  @BeforeEach
  void setUp() throws Exception {
    holder = new ClusterMetadataHolder("p1", new MetadataFiles(List.of(tmp)));
    fake = new FakeTargets();
    timer = Executors.newSingleThreadScheduledExecutor();
    jobs = new ProxyJobs(holder, fake, timer, Clock.fixed(T0.plusSeconds(10), ZoneOffset.UTC));
    cluster(target("t1", NodeState.ACTIVE), target("t2", NodeState.ACTIVE), target("t3", NodeState.MAINTENANCE));
  }

  @AfterEach
  void tearDown() {
    timer.shutdownNow();
  }

  private static PrefetchRequest request(String body) throws Exception {
    JsonNode n = ClusterJson.mapper().readTree(body.replace('\'', '"'));
    return PrefetchRequest.parse(n);
  }

  private String startTemplate() throws Exception {
    return jobs.start(request("{'kind':'prefetch','bucket':'s3://data','template':'s-{0..99}'}")).join();
  }

  @Test
  void start_sendsToEveryPlacedTarget_withTheParticipants() throws Exception {
    String id = startTemplate();
    assertThat(id).startsWith("pf-");
    assertThat(fake.started).hasSize(2);
    assertThat(fake.started.get(0).targets()).containsExactly("t1", "t2"); // t3 is in maintenance
    assertThat(fake.started.get(0).template()).isEqualTo("s-{0..99}");
  }

  @Test
  void start_unknownOrLocalBucket_isRejected() {
    assertThatThrownBy(() -> jobs.start(request("{'kind':'prefetch','bucket':'s3://nope','prefix':''}")))
        .isInstanceOf(BucketNotFoundException.class);
    assertThatThrownBy(() -> jobs.start(request("{'kind':'prefetch','bucket':'ais://scratch','prefix':''}")))
        .isInstanceOf(BadRequestException.class).hasMessageContaining("only remote buckets can be prefetched");
  }

  @Test
  void start_offlineTarget_is503() {
    cluster(target("t1", NodeState.ACTIVE), target("t2", NodeState.OFFLINE));
    assertThatThrownBy(this::startTemplate).isInstanceOf(ApiException.class)
        .hasMessageContaining("target t2 is offline")
        .satisfies(e -> assertThat(((ApiException) e).status().code()).isEqualTo(503));
  }

  @Test
  void start_oneTargetUnreachable_abortsTheOthers() {
    fake.down.add("t2");
    assertThatThrownBy(this::startTemplate).hasCauseInstanceOf(ApiException.class)
        .hasMessageContaining("target t2 did not accept the job");
    assertThat(fake.aborts).hasSize(1).allMatch(a -> a.startsWith("t1:"));
  }

  @Test
  void status_sumsTargets_andUnknownIs404() throws Exception {
    String id = startTemplate();
    JobStatus s = jobs.status(id).join();
    assertThat(s.state()).isEqualTo("running");
    assertThat(s.objects().total()).isEqualTo(10);
    assertThat(s.targets()).containsOnlyKeys("t1", "t2");
    assertThatThrownBy(() -> jobs.status("pf-nope").join()).hasCauseInstanceOf(NoSuchJobException.class);
  }

  @Test
  void status_participantLostTheJob_runsUntilTheRestEnds_thenFails_withoutAborting() throws Exception {
    String id = startTemplate();
    fake.tables.get("t2").remove(id); // t2 restarted
    JobStatus s = jobs.status(id).join();
    assertThat(s.state()).as("t1 still runs its share").isEqualTo("running");
    assertThat(s.error()).contains("target t2 no longer knows the job");
    fake.put(Snapshots.of(id, "t1", "succeeded", 10, 5, 0, 0, 50, List.of("t1", "t2"), T0.plusSeconds(2)));
    JobStatus ended = jobs.status(id).join();
    assertThat(ended.state()).isEqualTo("failed");
    assertThat(ended.error()).contains("target t2 no longer knows the job");
    assertThat(fake.aborts).as("the survivor's share is not thrown away").isEmpty();
  }

  @Test
  void status_participantUnreachable_failsSayingSo() throws Exception {
    String id = startTemplate();
    fake.down.add("t1");
    fake.put(Snapshots.of(id, "t2", "succeeded", 10, 5, 0, 0, 50, List.of("t1", "t2"), T0.plusSeconds(2)));
    JobStatus s = jobs.status(id).join();
    assertThat(s.state()).isEqualTo("failed");
    assertThat(s.error()).contains("target t1 did not answer", "Connection refused");
  }

  @Test
  void await_returnsOnceTheJobEnds() throws Exception {
    String id = startTemplate();
    CompletableFuture<JobStatus> w = jobs.await(id, Duration.ofSeconds(20));
    Thread.sleep(300);
    assertThat(w).isNotDone();
    fake.put(Snapshots.of(id, "t1", "succeeded", 10, 5, 0, 0, 50, List.of("t1", "t2"), T0.plusSeconds(2)));
    fake.put(Snapshots.of(id, "t2", "succeeded", 10, 5, 0, 0, 50, List.of("t1", "t2"), T0.plusSeconds(3)));
    JobStatus s = w.get(5, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(s.state()).isEqualTo("succeeded");
    assertThat(s.objects().done()).isEqualTo(10);
  }

  @Test
  void await_answersRunningWhenTheWaitIsOver() throws Exception {
    String id = startTemplate();
    assertThat(jobs.await(id, Duration.ofMillis(200)).get(5, java.util.concurrent.TimeUnit.SECONDS).state())
        .isEqualTo("running");
  }

  @Test
  void abort_reachesEveryTarget_andUnknownIs404() throws Exception {
    String id = startTemplate();
    assertThat(jobs.abort(id).join().state()).isEqualTo("aborted");
    assertThat(fake.aborts).contains("t1:" + id, "t2:" + id); // t3 (maintenance) is asked too: it may hold a part
    assertThatThrownBy(() -> jobs.abort("pf-nope").join()).hasCauseInstanceOf(NoSuchJobException.class);
  }

  @Test
  void list_newestFirst() throws Exception {
    TargetSnapshot o = Snapshots.of("old", "t1", "succeeded", 1, 1, 0, 0, 1, List.of("t1"), T0.plusSeconds(1));
    fake.put(new TargetSnapshot(o.id(), o.kind(), o.bucket(), o.target(), o.state(), o.error(), o.selection(),
        o.prefix(), o.template(), o.latest(), o.selectionTotal(), o.walked(), o.walkComplete(), o.owned(),
        o.ownedBytes(), o.done(), o.fetched(), o.cached(), o.notFound(), o.failed(), o.bytesFetched(), o.failures(),
        o.failuresDropped(), o.participants(), T0.minusSeconds(100), o.finished()));
    String id = startTemplate();
    List<JobStatus> l = jobs.list().join();
    assertThat(l).extracting(JobStatus::id).containsExactly(id, "old");
    assertThat(l.get(1).state()).isEqualTo("succeeded");
  }

  @Test
  void retry_runningOrNothingFailed_is409() throws Exception {
    String id = startTemplate();
    assertThatThrownBy(() -> jobs.retry(id).join()).hasCauseInstanceOf(ConflictException.class)
        .hasMessageContaining("still running");
    fake.put(Snapshots.of("ok", "t1", "succeeded", 1, 1, 0, 0, 1, List.of("t1"), T0.plusSeconds(1)));
    assertThatThrownBy(() -> jobs.retry("ok").join()).hasCauseInstanceOf(ConflictException.class)
        .hasMessageContaining("no failed objects");
    assertThatThrownBy(() -> jobs.retry("pf-nope").join()).hasCauseInstanceOf(NoSuchJobException.class);
  }

  @Test
  void retry_startsANamesJobOverTheFailures() throws Exception {
    fake.put(Snapshots.of("bad", "t1", "failed", 4, 1, 0, 2, 1, List.of("t1", "t2"), T0.plusSeconds(1)));
    fake.put(Snapshots.of("bad", "t2", "failed", 4, 0, 0, 1, 0, List.of("t1", "t2"), T0.plusSeconds(1)));
    Map<String, String> r = jobs.retry("bad").join();
    assertThat(r).containsEntry("retry_of", "bad").containsKey("id");
    TargetJobSpec spec = fake.started.get(0);
    assertThat(spec.id()).isEqualTo(r.get("id"));
    assertThat(spec.names()).containsExactlyInAnyOrder("t1-bad-0", "t1-bad-1", "t2-bad-0");
    assertThat(spec.bucket()).isEqualTo("s3://data");
  }
}
