package io.granary.proxy.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeRole;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.acl.CannedAcl;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.clustermap.bucket.Provider;
import io.granary.common.control.ControlClient;
import io.granary.common.error.BadRequestException;
import io.granary.common.error.BucketNotFoundException;
import io.granary.common.error.ConflictException;
import io.granary.common.error.NodeNotFoundException;
import io.granary.common.error.RouteNotFoundException;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.membership.ClusterMetadata;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.MetadataFiles;
import io.granary.common.membership.NodeRegistration;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The authority with a real holder on disk and a real pusher. Joined nodes' URLs point at a closed port, so pushes
 * fail and are retried in the background until the scheduler is shut down; the authority never waits for them.
 */
class ClusterAuthorityTest {
  private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
  private static final Node SELF = new Node("p1", NodeRole.PROXY, "http://127.0.0.1:51080", NodeState.ACTIVE, 1);
  private static final String DEAD_URL = "http://127.0.0.1:1";

  @TempDir
  Path dir;
  private ScheduledExecutorService scheduler;
  private ExecutorService httpExecutor;
  private ClusterAuthority authority;

  @BeforeEach
  void setUp() throws IOException {
    scheduler = Executors.newSingleThreadScheduledExecutor();
    httpExecutor = Executors.newFixedThreadPool(1);
    authority = newAuthority();
  }

  @AfterEach
  void tearDown() {
    scheduler.shutdownNow();
    httpExecutor.shutdownNow();
  }

  private ClusterAuthority newAuthority() throws IOException {
    ClusterMetadataHolder holder = new ClusterMetadataHolder("p1", new MetadataFiles(List.of(dir)));
    MetadataPusher pusher = new MetadataPusher("p1", new ControlClient(Duration.ofMillis(500), httpExecutor), scheduler);
    return new ClusterAuthority(holder, pusher, Clock.fixed(NOW, ZoneOffset.UTC));
  }

  /** What a proxy restarting over the same directory would load. */
  private ClusterMetadata persisted() throws IOException {
    return new ClusterMetadataHolder("p1", new MetadataFiles(List.of(dir))).require().metadata();
  }

  private static NodeRegistration target(String id) {
    return new NodeRegistration(id, NodeRole.TARGET, DEAD_URL + "/" + id, 0);
  }

  private ClusterMetadata bootstrapWithTargets(String... ids) {
    ClusterMetadata md = authority.bootstrap(SELF);
    for (String id : ids) {
      md = joinInTwoSteps(target(id));
    }
    return md;
  }

  /** As a target's joiner does: registers, then registers again holding the metadata it was answered. */
  private ClusterMetadata joinInTwoSteps(NodeRegistration reg) {
    ClusterMetadata first = authority.join(reg);
    return authority.join(reg.holding(first.map().version()));
  }

  private static NodeState state(ClusterMetadata md, String id) {
    return md.map().node(id).orElseThrow().state();
  }

  private static void assertInvalidState(Runnable r) {
    assertThatThrownBy(r::run).isInstanceOfSatisfying(ConflictException.class, e -> {
      assertThat(e.code()).isEqualTo(ConflictException.INVALID_STATE);
      assertThat(e.status().code()).isEqualTo(409);
    });
  }

  // ---------------------------------------------------------------- bootstrap

  @Test
  void bootstrap_firstStart_createsVersion1WithSelfAsPrimary() throws IOException {
    ClusterMetadata md = authority.bootstrap(SELF);

    ClusterMap map = md.map();
    assertThat(map.version()).isEqualTo(1);
    assertThat(map.primary()).isEqualTo("p1");
    assertThat(map.proxies()).containsOnlyKeys("p1");
    assertThat(map.primaryNode()).isEqualTo(SELF);
    assertThat(map.targets()).isEmpty();
    assertThat(map.created()).isEqualTo(NOW);
    assertThat(map.uuid()).isNotBlank();
    assertThat(md.buckets().version()).isEqualTo(1);
    assertThat(md.buckets().buckets()).isEmpty();
    assertThat(persisted()).isEqualTo(md);
  }

  @Test
  void bootstrap_restart_resumesSameClusterWithoutNewVersion() throws IOException {
    ClusterMetadata first = bootstrapWithTargets("t1");

    ClusterMetadata resumed = newAuthority().bootstrap(SELF);

    assertThat(resumed).isEqualTo(first);
  }

  @Test
  void bootstrap_restartAtNewUrl_updatesOwnEntry() throws IOException {
    ClusterMetadata first = bootstrapWithTargets("t1");

    ClusterMetadata resumed = newAuthority().bootstrap(SELF.withUrl("http://10.0.0.9:51080"));

    assertThat(resumed.map().uuid()).isEqualTo(first.map().uuid());
    assertThat(resumed.map().version()).isEqualTo(first.map().version() + 1);
    assertThat(resumed.map().primaryNode().url()).isEqualTo("http://10.0.0.9:51080");
    assertThat(resumed.map().targets()).containsOnlyKeys("t1");
    assertThat(persisted()).isEqualTo(resumed);
  }

  @Test
  void bootstrap_persistedMapNamesAnotherPrimary_refusesToStart() throws IOException {
    authority.bootstrap(SELF);
    Node other = new Node("p2", NodeRole.PROXY, "http://127.0.0.1:51090", NodeState.ACTIVE, 1);

    assertThatThrownBy(() -> newAuthority().bootstrap(other))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("p1");
  }

  @Test
  void changes_beforeBootstrap_are503() {
    assertThatThrownBy(() -> authority.join(target("t1"))).isInstanceOf(ServiceUnavailableException.class);
    assertThatThrownBy(() -> authority.createBucket(Bucket.local("bkt"), ChecksumType.XXHASH64))
        .isInstanceOf(ServiceUnavailableException.class);
  }

  // ---------------------------------------------------------------- join

  @Test
  void join_newTarget_joinsOutOfPlacement_andIsActiveOnceItRegistersHoldingTheMap() throws IOException {
    ClusterMetadata boot = authority.bootstrap(SELF);
    NodeRegistration reg = new NodeRegistration("t1", NodeRole.TARGET, DEAD_URL + "/t1/", 2.5);

    ClusterMetadata joining = authority.join(reg);

    assertThat(joining.map().version()).isEqualTo(2);
    assertThat(joining.map().targets().get("t1"))
        .isEqualTo(new Node("t1", NodeRole.TARGET, DEAD_URL + "/t1", NodeState.JOINING, 2.5));
    assertThat(joining.map().placement().size()).as("no client is sent to it yet").isZero();
    assertThat(joining.map().rebalance()).as("placement unchanged: no rebalance").isEqualTo(boot.map().rebalance());
    assertThat(joining.buckets().version()).as("bucket metadata untouched").isEqualTo(1);
    assertThat(authority.join(reg)).as("again without a map: still joining, nothing changes").isEqualTo(joining);

    ClusterMetadata active = authority.join(reg.holding(joining.map().version()));

    assertThat(active.map().version()).isEqualTo(3);
    assertThat(active.map().targets().get("t1"))
        .isEqualTo(new Node("t1", NodeRole.TARGET, DEAD_URL + "/t1", NodeState.ACTIVE, 2.5));
    assertThat(active.map().placement().owner(1).orElseThrow().id()).isEqualTo("t1");
    assertThat(active.map().rebalance().running()).as("started by the placement change").isTrue();
    assertThat(persisted()).isEqualTo(active);
  }

  @Test
  void join_targetHoldingOlderBucketMetadata_staysJoining_untilItHoldsTheCurrent() {
    authority.bootstrap(SELF);
    NodeRegistration reg = target("t1");
    ClusterMetadata joining = authority.join(reg);
    // A bucket created while t1 joins: metasync is still carrying the new bucket metadata to it.
    ClusterMetadata withBucket = authority.createBucket(Bucket.local("late"), ChecksumType.XXHASH64);

    ClusterMetadata stale = authority.join(reg.holding(joining.map().version(), joining.buckets().version()));

    assertThat(state(stale, "t1")).as("not placed before it knows bucket late").isEqualTo(NodeState.JOINING);
    assertThat(stale.map().placement().size()).isZero();

    ClusterMetadata current = authority.join(reg.holding(stale.map().version(), withBucket.buckets().version()));

    assertThat(state(current, "t1")).isEqualTo(NodeState.ACTIVE);
  }

  @Test
  void join_targetWithAMapAlready_isActiveAtOnce() {
    authority.bootstrap(SELF);
    // A member that kept its metadata while the primary lost its own registers holding a map.
    ClusterMetadata md = authority.join(target("t1").holding(7));
    assertThat(state(md, "t1")).isEqualTo(NodeState.ACTIVE);
  }

  @Test
  void joining_isNotAStateOperatorsSet_andAJoiningTargetThatStopsAnsweringLeavesTheMap() {
    bootstrapWithTargets("t1");
    ClusterMetadata joining = authority.join(target("t2"));
    assertThat(state(joining, "t2")).isEqualTo(NodeState.JOINING);
    assertInvalidState(() -> authority.setState("t1", NodeState.JOINING));

    authority.healthChanged("t2", false);

    ClusterMetadata after = authority.join(target("t3"));
    assertThat(after.map().targets()).as("t2 left; it was never placed").containsOnlyKeys("t1", "t3");
    assertThat(after.map().retired()).as("it may join again").doesNotContain("t2");
    assertThat(state(authority.join(target("t2")), "t2")).isEqualTo(NodeState.JOINING);
  }

  @Test
  void join_proxy_isAddedAsProxy() {
    authority.bootstrap(SELF);
    ClusterMetadata md = authority.join(new NodeRegistration("p2", NodeRole.PROXY, DEAD_URL, 0));
    assertThat(md.map().proxies()).containsOnlyKeys("p1", "p2");
    assertThat(md.map().primary()).isEqualTo("p1");
  }

  @Test
  void join_sameRegistrationAgain_isNoOp() throws IOException {
    ClusterMetadata md = bootstrapWithTargets("t1");

    ClusterMetadata again = authority.join(target("t1").holding(md.map().version()));

    assertThat(again).isEqualTo(md);
    assertThat(persisted()).isEqualTo(md);
  }

  @Test
  void join_newUrl_refreshesNode() throws IOException {
    long before = bootstrapWithTargets("t1").map().version();
    ClusterMetadata md = authority.join(new NodeRegistration("t1", NodeRole.TARGET, "http://127.0.0.1:2", 0));
    assertThat(md.map().version()).isEqualTo(before + 1);
    assertThat(md.map().targets().get("t1").url()).isEqualTo("http://127.0.0.1:2");
    assertThat(persisted()).isEqualTo(md);
  }

  @Test
  void join_withoutWeight_keepsPreviousWeight() {
    authority.bootstrap(SELF);
    long before = joinInTwoSteps(new NodeRegistration("t1", NodeRole.TARGET, DEAD_URL, 3)).map().version();
    ClusterMetadata md = authority.join(new NodeRegistration("t1", NodeRole.TARGET, DEAD_URL, 0, before));
    assertThat(md.map().targets().get("t1").weight()).isEqualTo(3);
    assertThat(md.map().version()).as("nothing changed").isEqualTo(before);
  }

  @Test
  void join_afterOffline_makesNodeActiveAgain() throws IOException {
    long before = bootstrapWithTargets("t1").map().version();
    authority.healthChanged("t1", false);
    assertThat(state(persisted(), "t1")).isEqualTo(NodeState.OFFLINE);

    ClusterMetadata md = authority.join(target("t1"));

    assertThat(state(md, "t1")).isEqualTo(NodeState.ACTIVE);
    assertThat(md.map().version()).isEqualTo(before + 2);
    assertThat(persisted()).isEqualTo(md);
  }

  @Test
  void join_inMaintenance_staysInMaintenance() {
    bootstrapWithTargets("t1", "t2");
    authority.setState("t1", NodeState.MAINTENANCE);
    ClusterMetadata md = authority.join(target("t1"));
    assertThat(state(md, "t1")).isEqualTo(NodeState.MAINTENANCE);
  }

  @Test
  void join_decommissionedNode_isRefusedOnceItLeftTheMap() throws IOException {
    bootstrapWithTargets("t1", "t2");
    ClusterMetadata md = authority.setState("t1", NodeState.DECOMMISSIONING);
    assertThat(authority.join(target("t1")).map().targets().get("t1").state())
        .as("restarted while its data moves: still decommissioning").isEqualTo(NodeState.DECOMMISSIONING);
    ClusterMetadata done = authority.finishRebalance(md.map().rebalance().id(), java.util.Set.of("t1"));
    assertThat(done.map().targets()).containsOnlyKeys("t2");

    assertThatThrownBy(() -> authority.join(target("t1"))).isInstanceOfSatisfying(ConflictException.class,
        e -> assertThat(e.code()).isEqualTo(ConflictException.NODE_DECOMMISSIONED));
    assertThat(persisted()).isEqualTo(done);
  }

  @Test
  void decommissionedProxy_leavesTheMapAtOnce_andMayJoinAgain() throws IOException {
    bootstrapWithTargets("t1");
    ClusterMetadata before = authority.join(new NodeRegistration("p2", NodeRole.PROXY, DEAD_URL, 0));
    ClusterMetadata gone = authority.setState("p2", NodeState.DECOMMISSIONING);
    assertThat(gone.map().proxies()).containsOnlyKeys("p1");
    assertThat(gone.map().retired()).as("a proxy held no data: not retired").isEmpty();
    assertThat(gone.map().rebalance()).as("no rebalance for a proxy").isEqualTo(before.map().rebalance());
    assertThat(persisted()).isEqualTo(gone);

    // The pod at that ordinal comes back (scaled up again): it joins under the same id.
    assertThat(authority.join(new NodeRegistration("p2", NodeRole.PROXY, DEAD_URL, 0)).map().proxies())
        .containsKeys("p1", "p2");
  }

  @Test
  void join_sameIdOtherRole_isRefused() {
    bootstrapWithTargets("t1");
    assertInvalidState(() -> authority.join(new NodeRegistration("t1", NodeRole.PROXY, DEAD_URL, 0)));
    assertInvalidState(() -> authority.join(new NodeRegistration("p1", NodeRole.TARGET, DEAD_URL, 0)));
  }

  @Test
  void join_invalidRegistration_isBadRequest() {
    authority.bootstrap(SELF);
    for (NodeRegistration bad : List.of(
        new NodeRegistration("bad id!", NodeRole.TARGET, DEAD_URL, 0),
        new NodeRegistration("t1", NodeRole.TARGET, DEAD_URL, -1),
        new NodeRegistration(null, NodeRole.TARGET, DEAD_URL, 0),
        new NodeRegistration("t1", null, DEAD_URL, 0),
        new NodeRegistration("t1", NodeRole.TARGET, null, 0))) {
      assertThatThrownBy(() -> authority.join(bad))
          .as("%s", bad)
          .isInstanceOfSatisfying(BadRequestException.class,
              e -> assertThat(e.code()).isEqualTo(BadRequestException.INVALID_ARGUMENT));
    }
  }

  // ---------------------------------------------------------------- health

  @Test
  void healthChanged_unhealthyActive_goesOfflineAndBack() throws IOException {
    long v = bootstrapWithTargets("t1").map().version();

    authority.healthChanged("t1", false);
    ClusterMetadata offline = persisted();
    assertThat(state(offline, "t1")).isEqualTo(NodeState.OFFLINE);
    assertThat(offline.map().version()).isEqualTo(v + 1);
    assertThat(offline.map().placement().owner(12345).orElseThrow().id()).as("keeps its HRW place").isEqualTo("t1");

    authority.healthChanged("t1", false);
    assertThat(persisted().map().version()).as("already offline: no new version").isEqualTo(v + 1);

    authority.healthChanged("t1", true);
    assertThat(state(persisted(), "t1")).isEqualTo(NodeState.ACTIVE);
    assertThat(persisted().map().version()).isEqualTo(v + 2);
  }

  @Test
  void healthChanged_onlyMovesBetweenActiveAndOffline() throws IOException {
    bootstrapWithTargets("t1", "t2", "t3");
    authority.setState("t1", NodeState.MAINTENANCE);
    authority.setState("t2", NodeState.DECOMMISSIONING);
    long version = persisted().map().version();

    authority.healthChanged("t1", false);
    authority.healthChanged("t2", true);
    authority.healthChanged("t2", false);
    authority.healthChanged("unknown", false);
    authority.healthChanged("t1", true);

    assertThat(persisted().map().version()).isEqualTo(version);
    assertThat(state(persisted(), "t1")).isEqualTo(NodeState.MAINTENANCE);
    assertThat(state(persisted(), "t2")).isEqualTo(NodeState.DECOMMISSIONING);
  }

  // ---------------------------------------------------------------- operator states

  @Test
  void setState_maintenanceActiveDecommissioning_transitions_eachStartingARebalance() throws IOException {
    long v = bootstrapWithTargets("t1", "t2").map().version();
    long rebalance = persisted().map().rebalance().id();

    ClusterMetadata m = authority.setState("t1", NodeState.MAINTENANCE);
    assertThat(state(m, "t1")).isEqualTo(NodeState.MAINTENANCE);
    assertThat(m.map().version()).isEqualTo(v + 1);
    assertThat(m.map().placement().owner(1).orElseThrow().id()).as("out of placement").isEqualTo("t2");
    assertThat(m.map().rebalance().id()).as("started in the same version").isEqualTo(rebalance + 1);
    assertThat(m.map().rebalance().running()).isTrue();
    assertThat(persisted()).isEqualTo(m);

    ClusterMetadata a = authority.setState("t1", NodeState.ACTIVE);
    assertThat(state(a, "t1")).isEqualTo(NodeState.ACTIVE);
    assertThat(a.map().version()).isEqualTo(v + 2);
    assertThat(a.map().rebalance().id()).isEqualTo(rebalance + 2);
    assertThat(persisted()).isEqualTo(a);

    ClusterMetadata d = authority.setState("t1", NodeState.DECOMMISSIONING);
    assertThat(state(d, "t1")).isEqualTo(NodeState.DECOMMISSIONING);
    assertThat(d.map().version()).isEqualTo(v + 3);
    assertThat(d.map().rebalance().id()).isEqualTo(rebalance + 3);
    assertThat(persisted()).isEqualTo(d);
  }

  @Test
  void setState_suspended_keepsPlacement_andStartsNoRebalance() throws IOException {
    ClusterMetadata before = bootstrapWithTargets("t1", "t2");
    ClusterMetadata s = authority.setState("t1", NodeState.SUSPENDED);
    assertThat(state(s, "t1")).isEqualTo(NodeState.SUSPENDED);
    assertThat(s.map().placementSignature()).isEqualTo(before.map().placementSignature());
    assertThat(s.map().rebalance()).isEqualTo(before.map().rebalance());
    assertThat(authority.setState("t1", NodeState.ACTIVE).map().rebalance()).isEqualTo(before.map().rebalance());
  }

  @Test
  void join_newTargetOrNewWeight_startsARebalance_refreshDoesNot() {
    ClusterMetadata one = bootstrapWithTargets("t1");
    long first = one.map().rebalance().id();
    assertThat(authority.join(target("t2")).map().rebalance().id()).as("joining: not placed yet").isEqualTo(first);
    ClusterMetadata two = joinInTwoSteps(target("t2"));
    assertThat(two.map().rebalance().id()).isEqualTo(first + 1);
    assertThat(authority.join(target("t2").holding(two.map().version())).map().rebalance().id())
        .as("same registration").isEqualTo(first + 1);
    authority.healthChanged("t2", false);
    assertThat(authority.join(target("t2")).map().rebalance().id()).as("back from offline").isEqualTo(first + 1);
    ClusterMetadata heavier = authority.join(new NodeRegistration("t2", NodeRole.TARGET, DEAD_URL + "/t2", 3));
    assertThat(heavier.map().rebalance().id()).isEqualTo(first + 2);
    assertThat(authority.setWeight("t1", 3).map().rebalance().id()).isEqualTo(first + 3);
  }

  @Test
  void rebalance_startAbortFinish_byIdOnly() throws IOException {
    bootstrapWithTargets("t1");
    ClusterMetadata started = authority.startRebalance();
    long id = started.map().rebalance().id();
    assertThat(started.map().rebalance().running()).isTrue();
    assertThat(started.map().settled()).isFalse();

    assertThatThrownBy(() -> authority.abortRebalance(id + 1)).isInstanceOf(RouteNotFoundException.class);
    assertThatThrownBy(() -> authority.abortRebalance(id - 1)).isInstanceOfSatisfying(ConflictException.class,
        e -> assertThat(e.code()).isEqualTo("JobSuperseded"));
    assertThat(authority.finishRebalance(id - 1, java.util.Set.of())).as("an older id changes nothing")
        .isEqualTo(started);

    ClusterMetadata aborted = authority.abortRebalance(id);
    assertThat(aborted.map().rebalance().state()).isEqualTo(io.granary.clustermap.Rebalance.State.ABORTED);
    assertThat(aborted.map().settled()).as("objects may still be misplaced").isFalse();
    assertThatThrownBy(() -> authority.abortRebalance(id)).isInstanceOfSatisfying(ConflictException.class,
        e -> assertThat(e.code()).isEqualTo("JobNotRunning"));
    assertThat(authority.finishRebalance(id, java.util.Set.of())).as("aborted stays aborted").isEqualTo(aborted);

    ClusterMetadata again = authority.startRebalance();
    ClusterMetadata finished = authority.finishRebalance(again.map().rebalance().id(), java.util.Set.of("t1"));
    assertThat(finished.map().settled()).isTrue();
    assertThat(finished.map().targets()).as("t1 is not leaving: stays").containsOnlyKeys("t1");
    assertThat(persisted()).isEqualTo(finished);
  }

  @Test
  void retryRebalance_afterAFailureIsRecorded_startsTheNextIdOneAttemptMore_underTheCurrentMap() throws IOException {
    bootstrapWithTargets("t1", "t2");
    long id = authority.startRebalance().map().rebalance().id();
    assertThat(authority.retryRebalance(id).map().rebalance().id()).as("no retry scheduled: nothing").isEqualTo(id);

    ClusterMetadata failed = authority.rebalanceFailed(id, "rb-" + id + ": t1: 2 objects could not be moved",
        NOW.plusSeconds(10));
    assertThat(failed.map().rebalance().running()).as("unsettled until a retry succeeds").isTrue();
    assertThat(failed.map().rebalance().nextAttempt()).isEqualTo(NOW.plusSeconds(10));
    assertThat(authority.rebalanceFailed(id, "rb-" + id + ": t1: 2 objects could not be moved", NOW.plusSeconds(10)))
        .as("recorded already: no new version").isEqualTo(failed);

    ClusterMetadata retried = authority.retryRebalance(id);
    io.granary.clustermap.Rebalance r = retried.map().rebalance();
    assertThat(r.id()).isEqualTo(id + 1);
    assertThat(r.attempt()).isEqualTo(2);
    assertThat(r.lastError()).isEqualTo("rb-" + id + ": t1: 2 objects could not be moved");
    assertThat(r.nextAttempt()).isNull();
    assertThat(authority.retryRebalance(id)).as("the retry of a superseded rebalance does nothing").isEqualTo(retried);
    assertThat(persisted()).isEqualTo(retried);
  }

  @Test
  void retryRebalance_afterAnAbort_doesNothing() throws IOException {
    bootstrapWithTargets("t1", "t2");
    long id = authority.startRebalance().map().rebalance().id();
    authority.rebalanceFailed(id, "rb-" + id + ": broken", NOW.plusSeconds(10));
    ClusterMetadata aborted = authority.abortRebalance(id);
    assertThat(aborted.map().rebalance().nextAttempt()).as("the abort drops the scheduled retry").isNull();
    assertThat(authority.retryRebalance(id)).isEqualTo(aborted);
    assertThat(authority.rebalanceFailed(id, "rb-" + id + ": again", NOW.plusSeconds(20))).isEqualTo(aborted);
    assertThat(persisted()).isEqualTo(aborted);
  }

  @Test
  void removeDeadTarget_offline_leavesTheMapRetired_startsARebalance_andSaysWhatIsLost() throws IOException {
    bootstrapWithTargets("t1", "t2", "t3");
    authority.createBucket(Bucket.local("train"), ChecksumType.XXHASH64);
    authority.createBucket(new Bucket(Provider.AWS, "imagenet"), ChecksumType.XXHASH64, null, null);
    authority.healthChanged("t3", false);
    long rb = persisted().map().rebalance() == null ? 0 : persisted().map().rebalance().id();

    ForcedRemoval report = authority.removeDeadTarget("t3");
    ClusterMetadata after = persisted();
    assertThat(after.map().targets()).containsOnlyKeys("t1", "t2");
    assertThat(after.map().retired()).containsExactly("t3");
    assertThat(after.map().rebalance().id()).isEqualTo(rb + 1);
    assertThat(after.map().rebalance().running()).isTrue();
    assertThat(report.removed()).isEqualTo("t3");
    assertThat(report.state()).isEqualTo("offline");
    assertThat(report.mapVersion()).isEqualTo(after.map().version());
    assertThat(report.rebalance()).isEqualTo(after.map().rebalance().jobId());
    assertThat(report.localBuckets()).containsExactly(Bucket.local("train").toString());
    assertThat(report.remoteBuckets()).containsExactly(new Bucket(Provider.AWS, "imagenet").toString());
    assertThatThrownBy(() -> authority.join(target("t3"))).isInstanceOfSatisfying(ConflictException.class,
        e -> assertThat(e.code()).isEqualTo(ConflictException.NODE_DECOMMISSIONED));
  }

  @Test
  void removeDeadTarget_outOfPlacementAlready_stillStartsARebalanceAmongTheSurvivors() throws IOException {
    bootstrapWithTargets("t1", "t2");
    authority.setState("t2", NodeState.DECOMMISSIONING);
    long rb = persisted().map().rebalance().id();
    authority.removeDeadTarget("t2");
    assertThat(persisted().map().rebalance().id()).isEqualTo(rb + 1);
    assertThat(persisted().map().targets()).containsOnlyKeys("t1");
  }

  @Test
  void removeDeadTarget_refusals_changeNothing() throws IOException {
    bootstrapWithTargets("t1", "t2");
    authority.healthChanged("t2", false);
    authority.setState("t1", NodeState.MAINTENANCE);
    ClusterMetadata before = persisted();
    assertThatThrownBy(() -> authority.removeDeadTarget("t9")).isInstanceOf(NodeNotFoundException.class);
    assertThatThrownBy(() -> authority.removeDeadTarget("p1")).isInstanceOf(ConflictException.class)
        .hasMessageContaining("primary");
    assertInvalidState(() -> authority.removeDeadTarget("t2")); // t1 is out of placement: t2 is the last placed
    authority.setState("t1", NodeState.ACTIVE);
    ClusterMetadata active = persisted();
    assertThatThrownBy(() -> authority.removeDeadTarget("t1")).isInstanceOfSatisfying(ConflictException.class,
        e -> assertThat(e.code()).isEqualTo(RemovalCheck.NODE_ALIVE));
    assertThatThrownBy(() -> RemovalCheck.require(active.map(), "t2", false))
        .isInstanceOfSatisfying(ConflictException.class, e -> assertThat(e.code())
            .isEqualTo(RemovalCheck.FORCE_REQUIRED));
    assertThat(persisted()).isEqualTo(active);
    assertThat(active.map().version()).isEqualTo(before.map().version() + 1);
  }

  @Test
  void setState_sameState_isNoOp() throws IOException {
    ClusterMetadata md = bootstrapWithTargets("t1");
    assertThat(authority.setState("t1", NodeState.ACTIVE)).isEqualTo(md);
    assertThat(persisted().map().version()).isEqualTo(md.map().version());
  }

  @Test
  void setState_offlineNodeToMaintenanceOrDecommissioning_isAllowed() {
    bootstrapWithTargets("t1", "t2", "t3");
    authority.healthChanged("t1", false);
    authority.healthChanged("t2", false);
    assertThat(state(authority.setState("t1", NodeState.MAINTENANCE), "t1")).isEqualTo(NodeState.MAINTENANCE);
    assertThat(state(authority.setState("t2", NodeState.DECOMMISSIONING), "t2"))
        .isEqualTo(NodeState.DECOMMISSIONING);
  }

  @Test
  void setState_lastTargetInPlacement_cannotLeave() throws IOException {
    bootstrapWithTargets("t1", "t2");
    authority.setState("t1", NodeState.MAINTENANCE);
    ClusterMetadata before = persisted();
    assertInvalidState(() -> authority.setState("t2", NodeState.DECOMMISSIONING));
    assertInvalidState(() -> authority.setState("t2", NodeState.MAINTENANCE));
    assertThat(persisted()).isEqualTo(before);
    assertThat(state(authority.setState("t2", NodeState.SUSPENDED), "t2")).as("suspended keeps its place")
        .isEqualTo(NodeState.SUSPENDED);
  }

  @Test
  void setState_leaveGuardRefusal_changesNothing() throws IOException {
    ClusterMetadataHolder holder = new ClusterMetadataHolder("p1", new MetadataFiles(List.of(dir)));
    MetadataPusher pusher = new MetadataPusher("p1", new ControlClient(Duration.ofMillis(500), httpExecutor), scheduler);
    authority = new ClusterAuthority(holder, pusher, Clock.fixed(NOW, ZoneOffset.UTC), (current, next) -> {
      throw new ConflictException("InsufficientCapacity", "the rest cannot hold it");
    });
    bootstrapWithTargets("t1", "t2");
    ClusterMetadata before = persisted();
    assertThatThrownBy(() -> authority.setState("t1", NodeState.DECOMMISSIONING))
        .isInstanceOfSatisfying(ConflictException.class, e -> assertThat(e.code()).isEqualTo("InsufficientCapacity"));
    assertThat(persisted()).isEqualTo(before);
    assertThat(state(authority.setState("t1", NodeState.SUSPENDED), "t1")).as("no data moves: not asked")
        .isEqualTo(NodeState.SUSPENDED);
  }

  @Test
  void setState_forbiddenTransitions_areInvalidNodeState() throws IOException {
    bootstrapWithTargets("t1", "t2", "t3");
    authority.healthChanged("t2", false);
    authority.setState("t3", NodeState.MAINTENANCE);
    ClusterMetadata before = persisted();

    assertInvalidState(() -> authority.setState("t1", NodeState.OFFLINE)); // offline is for health checks
    assertInvalidState(() -> authority.setState("p1", NodeState.MAINTENANCE)); // the primary
    assertInvalidState(() -> authority.setState("p1", NodeState.ACTIVE));
    assertInvalidState(() -> authority.setState("t2", NodeState.ACTIVE)); // offline -> active only by health
    assertInvalidState(() -> authority.setState("t3", NodeState.SUSPENDED)); // out of placement already

    assertThat(persisted()).isEqualTo(before);
  }

  @Test
  void setState_unknownNode_is404() {
    authority.bootstrap(SELF);
    assertThatThrownBy(() -> authority.setState("nope", NodeState.MAINTENANCE))
        .isInstanceOf(NodeNotFoundException.class).hasMessageContaining("no node 'nope' in the cluster map");
  }

  // ---------------------------------------------------------------- buckets

  @Test
  void createBucket_addsPropsAndBumpsBucketVersion() throws IOException {
    authority.bootstrap(SELF);

    ClusterMetadata md = authority.createBucket(Bucket.local("bkt"), ChecksumType.MD5);

    BucketProps p = md.buckets().get(Bucket.local("bkt")).orElseThrow();
    assertThat(p.checksum()).isEqualTo(ChecksumType.MD5);
    assertThat(p.created()).isEqualTo(NOW);
    assertThat(p.id()).matches("[0-9a-f]{12}");
    assertThat(md.buckets().version()).isEqualTo(2);
    assertThat(md.map().version()).as("map untouched").isEqualTo(1);
    assertThat(persisted()).isEqualTo(md);
  }

  @Test
  void createBucket_withAcl_isOneVersion_andSetBucketAcl_changesOnlyTheAcl() throws IOException {
    authority.bootstrap(SELF);
    ClusterMetadata created = authority.createBucket(Bucket.local("bkt"), ChecksumType.MD5, null, null,
        CannedAcl.PUBLIC_READ);
    BucketProps p = created.buckets().get(Bucket.local("bkt")).orElseThrow();
    assertThat(p.acl()).isEqualTo(CannedAcl.PUBLIC_READ);
    assertThat(created.buckets().version()).isEqualTo(2);

    ClusterMetadata changed = authority.setBucketAcl(Bucket.local("bkt"), CannedAcl.PRIVATE);
    assertThat(changed.buckets().version()).isEqualTo(3);
    assertThat(changed.buckets().get(Bucket.local("bkt")).orElseThrow()).isEqualTo(p.withAcl(CannedAcl.PRIVATE));
    assertThat(persisted()).isEqualTo(changed);
    assertThat(authority.setBucketAcl(Bucket.local("bkt"), CannedAcl.PRIVATE)).as("unchanged: no new version")
        .isEqualTo(changed);
  }

  @Test
  void setBucketAcl_missingBucket_is404_andChangesNothing() throws IOException {
    ClusterMetadata md = authority.bootstrap(SELF);
    assertThatThrownBy(() -> authority.setBucketAcl(Bucket.local("nope"), CannedAcl.PUBLIC_READ))
        .isInstanceOf(BucketNotFoundException.class);
    assertThat(persisted()).isEqualTo(md);
  }

  @Test
  void createBucket_twice_isBucketAlreadyExists() throws IOException {
    authority.bootstrap(SELF);
    ClusterMetadata md = authority.createBucket(Bucket.local("bkt"), ChecksumType.XXHASH64);

    assertThatThrownBy(() -> authority.createBucket(Bucket.local("bkt"), ChecksumType.MD5))
        .isInstanceOfSatisfying(ConflictException.class, e -> {
          assertThat(e.code()).isEqualTo(ConflictException.BUCKET_EXISTS);
          assertThat(e.status().code()).isEqualTo(409);
        });
    assertThat(persisted()).isEqualTo(md);
  }

  @Test
  void createBucket_nameTakenByAnotherProvider_is409_becauseS3ClientsNameBucketsWithoutOne() {
    authority.bootstrap(SELF);
    authority.createBucket(Bucket.local("bkt"), ChecksumType.XXHASH64);
    assertThatThrownBy(() -> authority.createBucket(new Bucket(Provider.AWS, "bkt"), ChecksumType.XXHASH64))
        .isInstanceOf(ConflictException.class).hasMessageContaining("ais://bkt");
    ClusterMetadata md = authority.createBucket(new Bucket(Provider.AWS, "bkt2"), ChecksumType.XXHASH64);
    assertThat(md.buckets().buckets()).hasSize(2);
  }

  @Test
  void deleteBucket_removesIt_andRecreateGetsNewId() throws IOException {
    authority.bootstrap(SELF);
    String firstId = authority.createBucket(Bucket.local("bkt"), ChecksumType.XXHASH64)
        .buckets().get(Bucket.local("bkt")).orElseThrow().id();

    ClusterMetadata md = authority.deleteBucket(Bucket.local("bkt"));
    assertThat(md.buckets().get(Bucket.local("bkt"))).isEmpty();
    assertThat(md.buckets().version()).isEqualTo(3);
    assertThat(persisted()).isEqualTo(md);

    ClusterMetadata again = authority.createBucket(Bucket.local("bkt"), ChecksumType.XXHASH64);
    assertThat(again.buckets().get(Bucket.local("bkt")).orElseThrow().id()).isNotEqualTo(firstId);
  }

  @Test
  void deleteBucket_unknown_isBucketNotFound() throws IOException {
    ClusterMetadata md = authority.bootstrap(SELF);
    assertThatThrownBy(() -> authority.deleteBucket(Bucket.local("nope")))
        .isInstanceOfSatisfying(BucketNotFoundException.class, e -> {
          assertThat(e.code()).isEqualTo("BucketNotFound");
          assertThat(e.status().code()).isEqualTo(404);
        });
    assertThat(persisted()).isEqualTo(md);
  }

  @Test
  void everyChange_survivesRestartOfThePrimary() throws IOException {
    bootstrapWithTargets("t1", "t2");
    authority.healthChanged("t2", false);
    authority.setState("t1", NodeState.MAINTENANCE);
    ClusterMetadata last = authority.createBucket(Bucket.local("bkt"), ChecksumType.CRC32C);

    ClusterAuthority restarted = newAuthority();
    ClusterMetadata resumed = restarted.bootstrap(SELF);

    assertThat(resumed).isEqualTo(last);
    assertThat(state(resumed, "t1")).isEqualTo(NodeState.MAINTENANCE);
    assertThat(state(resumed, "t2")).isEqualTo(NodeState.OFFLINE);
    assertThat(resumed.buckets().get(Bucket.local("bkt")).orElseThrow().checksum()).isEqualTo(ChecksumType.CRC32C);
    assertThatThrownBy(() -> restarted.createBucket(Bucket.local("bkt"), ChecksumType.XXHASH64))
        .isInstanceOf(ConflictException.class);
  }
}
