package io.granary.target.jobs;

import io.granary.common.jobs.NameTemplate;
import static io.granary.target.jobs.JobFixtures.map;
import static io.granary.target.jobs.JobFixtures.target;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static io.granary.target.jobs.JobFixtures.eventually;

import io.granary.backend.BackendException;
import io.granary.backend.RemoteObject;
import io.granary.backend.RemotePage;
import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.NodeState;
import io.granary.common.error.ApiException;
import io.granary.common.error.BadRequestException;
import io.granary.common.error.BucketNotFoundException;
import io.granary.common.error.ConflictException;
import io.granary.common.error.InsufficientStorageException;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.target.coldget.CacheFiller.FillResult;
import io.granary.target.coldget.CacheFiller.FillResult.Outcome;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TargetJobsTest {
  private static final ClusterMap ONE = map(target("t1", NodeState.ACTIVE));
  private static final ClusterMap TWO = map(target("t1", NodeState.ACTIVE), target("t2", NodeState.ACTIVE));

  @TempDir
  Path tmp;
  private TargetJobs jobs;

  @AfterEach
  void close() {
    if (jobs != null) {
      jobs.close();
    }
  }

  private TargetJobs jobs(ClusterMap map, JobFixtures.ScriptedFiller filler, RemoteLister lister) throws Exception {
    ClusterMetadataHolder h = JobFixtures.holder(tmp, "t1", map);
    jobs = new TargetJobs("t1", h, filler, lister, Clock.systemUTC(), 4, 16);
    return jobs;
  }

  private static PrefetchSpec names(String id, List<String> names, int concurrency) {
    return new PrefetchSpec(id, "s3://data", names, null, null, false, concurrency, List.of("t1"));
  }

  private static PrefetchSpec template(String id, String template, int concurrency) {
    return new PrefetchSpec(id, "s3://data", null, null, template, false, concurrency, List.of("t1"));
  }

  private JobSnapshot awaitEnd(String id) {
    eventually(() -> jobs.get(id).orElseThrow().state().finished());
    return jobs.get(id).orElseThrow();
  }

  private static RemoteLister noListing() {
    return (b, p, t) -> {
      throw new AssertionError("no listing expected");
    };
  }

  @Test
  void run_neverExceedsConcurrency_andCountsEverything() throws Exception {
    JobFixtures.ScriptedFiller filler = new JobFixtures.ScriptedFiller(null);
    jobs(ONE, filler, noListing()).start(template("j1", "s-{000..199}", 3));
    for (int settled = 0; settled < 200; ) {
      eventually(() -> !filler.pending.isEmpty());
      assertThat(filler.inFlight.get()).isLessThanOrEqualTo(3);
      settled += filler.completeAll();
    }
    JobSnapshot s = awaitEnd("j1");
    assertThat(filler.maxInFlight.get()).isEqualTo(3);
    assertThat(s.state()).isEqualTo(JobState.SUCCEEDED);
    assertThat(s.selectionTotal()).isEqualTo(200);
    assertThat(s.owned()).isEqualTo(200);
    assertThat(s.done()).isEqualTo(200);
    assertThat(s.fetched()).isEqualTo(200);
    assertThat(s.bytesFetched()).isEqualTo(2000);
    assertThat(s.finished()).isNotNull();
  }

  @Test
  void run_concurrencyAboveMax_isClamped() throws Exception {
    JobFixtures.ScriptedFiller filler = new JobFixtures.ScriptedFiller(null);
    jobs(ONE, filler, noListing()).start(template("j1", "s-{0..99}", 1000));
    eventually(() -> filler.pending.size() == 16);
    Thread.sleep(200);
    assertThat(filler.inFlight.get()).isEqualTo(16);
    jobs.abort("j1");
    filler.completeAll();
  }

  @Test
  void abort_stopsIssuingFillsPromptly() throws Exception {
    JobFixtures.ScriptedFiller filler = new JobFixtures.ScriptedFiller(null);
    jobs(ONE, filler, noListing()).start(template("j1", "s-{0000000..9999999}", 2));
    eventually(() -> filler.pending.size() == 2);
    JobSnapshot aborted = jobs.abort("j1").orElseThrow();
    assertThat(aborted.state()).isEqualTo(JobState.ABORTED);
    assertThat(aborted.error()).isEqualTo("aborted by request");
    filler.completeAll(); // frees the slots: the walker must not use them
    Thread.sleep(3 * PrefetchJob.POLL_MS);
    assertThat(filler.names).hasSize(2);
    JobSnapshot s = jobs.get("j1").orElseThrow();
    assertThat(s.state()).isEqualTo(JobState.ABORTED);
    assertThat(s.done()).isEqualTo(2);
    assertThat(s.walkComplete()).isFalse();
  }

  @Test
  void run_onlyOwnedNames_areFilled() throws Exception {
    JobFixtures.ScriptedFiller filler = new JobFixtures.ScriptedFiller(n -> new FillResult(Outcome.ALREADY_CACHED, 0));
    jobs(TWO, filler, noListing()).start(template("j1", "o{0..999}", 4));
    JobSnapshot s = awaitEnd("j1");
    Ownership mine = new Ownership("t1", JobFixtures.REMOTE, TWO::placement);
    List<String> expected = new ArrayList<>();
    NameTemplate.parse("o{0..999}").forEach(n -> {
      if (mine.owns(n)) {
        expected.add(n);
      }
    });
    assertThat(filler.names).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(s.walked()).isEqualTo(1000);
    assertThat(s.owned()).isEqualTo(expected.size()).isBetween(350L, 650L);
    assertThat(s.cached()).isEqualTo(expected.size());
    assertThat(s.state()).isEqualTo(JobState.SUCCEEDED);
  }

  @Test
  void run_namesNotFoundAndErrors_areFailures() throws Exception {
    JobFixtures.ScriptedFiller filler = new JobFixtures.ScriptedFiller(n -> switch (n) {
      case "missing" -> new FillResult(Outcome.NOT_FOUND, 0);
      case "broken" -> throw new IllegalStateException("remote said 500");
      default -> new FillResult(Outcome.FETCHED, 5);
    });
    jobs(ONE, filler, noListing()).start(names("j1", List.of("a", "missing", "broken", "b"), 2));
    JobSnapshot s = awaitEnd("j1");
    assertThat(s.state()).isEqualTo(JobState.FAILED);
    assertThat(s.done()).isEqualTo(4);
    assertThat(s.fetched()).isEqualTo(2);
    assertThat(s.notFound()).isEqualTo(1);
    assertThat(s.failed()).isEqualTo(2);
    assertThat(s.failures()).containsExactlyInAnyOrder(
        new JobSnapshot.Failure("missing", "not found in s3://data"),
        new JobSnapshot.Failure("broken", "remote said 500"));
  }

  @Test
  void run_failuresBeyondTheCap_areOnlyCounted() throws Exception {
    JobFixtures.ScriptedFiller filler = new JobFixtures.ScriptedFiller(n -> new FillResult(Outcome.NOT_FOUND, 0));
    jobs(ONE, filler, noListing()).start(template("j1", "gone-{0..1499}", 8));
    JobSnapshot s = awaitEnd("j1");
    assertThat(s.failed()).isEqualTo(1500);
    assertThat(s.failures()).hasSize(JobProgress.MAX_FAILURES);
    assertThat(s.failuresDropped()).isEqualTo(500);
    assertThat(jobs.list().get(0).failures()).isEmpty();
  }

  @Test
  void run_prefix_listsPageByPage_andNotFoundIsNoFailure() throws Exception {
    AtomicInteger pages = new AtomicInteger();
    RemoteLister lister = (b, prefix, token) -> {
      int page = token == null ? 0 : Integer.parseInt(token);
      pages.incrementAndGet();
      List<RemoteObject> objs = new ArrayList<>();
      for (int i = 0; i < (page < 2 ? RemoteLister.PAGE : 10); i++) {
        objs.add(new RemoteObject(prefix + page + "/" + i, 100, null, null, 0, null, null, null, null));
      }
      return new RemotePage(objs, null, page < 2 ? Integer.toString(page + 1) : null);
    };
    JobFixtures.ScriptedFiller filler = new JobFixtures.ScriptedFiller(
        n -> n.equals("p/1/7") ? new FillResult(Outcome.NOT_FOUND, 0) : new FillResult(Outcome.FETCHED, 100));
    jobs(ONE, filler, lister).start(new PrefetchSpec("j1", "s3://data", null, "p/", null, false, 8, List.of("t1")));
    JobSnapshot s = awaitEnd("j1");
    assertThat(pages.get()).isEqualTo(3);
    assertThat(s.state()).isEqualTo(JobState.SUCCEEDED);
    assertThat(s.selectionTotal()).isEqualTo(2010);
    assertThat(s.ownedBytes()).isEqualTo(201_000);
    assertThat(s.notFound()).isEqualTo(1);
    assertThat(s.failed()).isZero();
    assertThat(s.done()).isEqualTo(2010);
  }

  @Test
  void run_listingFails_jobFailsWithTheReason() throws Exception {
    RemoteLister lister = (b, p, t) -> {
      throw new BackendException(BackendException.Kind.ACCESS_DENIED, 403, "access denied to s3://data");
    };
    jobs(ONE, new JobFixtures.ScriptedFiller(n -> null), lister)
        .start(new PrefetchSpec("j1", "s3://data", null, "", null, false, 0, List.of("t1")));
    JobSnapshot s = awaitEnd("j1");
    assertThat(s.state()).isEqualTo(JobState.FAILED);
    assertThat(s.error()).contains("listing s3://data failed", "access denied");
    assertThat(s.selectionTotal()).isNull();
  }

  @Test
  void run_outOfSpace_stopsTheJob() throws Exception {
    JobFixtures.ScriptedFiller filler = new JobFixtures.ScriptedFiller(n -> {
      throw new InsufficientStorageException("no space left on t1");
    });
    jobs(ONE, filler, noListing()).start(template("j1", "s-{0..99999}", 1));
    JobSnapshot s = awaitEnd("j1");
    assertThat(s.state()).isEqualTo(JobState.FAILED);
    assertThat(s.error()).contains("out of space");
    assertThat(filler.names.size()).isLessThan(10);
  }

  @Test
  void start_rejectsBadRequests() throws Exception {
    jobs(ONE, new JobFixtures.ScriptedFiller(n -> null), noListing()).start(template("j1", "a{1..2}", 1));
    assertThatThrownBy(() -> jobs.start(template("j1", "a", 1))).isInstanceOf(ConflictException.class);
    assertThatThrownBy(() -> jobs.start(template("j2", "a{1..", 1))).isInstanceOf(BadRequestException.class)
        .hasMessageContaining("never closed");
    assertThatThrownBy(() -> jobs.start(new PrefetchSpec("j3", "ais://scratch", List.of("a"), null, null, false, 0,
        List.of()))).isInstanceOf(BadRequestException.class).hasMessageContaining("only remote buckets");
    assertThatThrownBy(() -> jobs.start(new PrefetchSpec("j4", "s3://nope", List.of("a"), null, null, false, 0,
        List.of()))).isInstanceOf(BucketNotFoundException.class);
  }

  @Test
  void start_tooManyRunning_isBusy() throws Exception {
    JobFixtures.ScriptedFiller filler = new JobFixtures.ScriptedFiller(null);
    jobs(ONE, filler, noListing());
    for (int i = 0; i < TargetJobs.MAX_RUNNING; i++) {
      jobs.start(template("j" + i, "x{0..9}", 1));
    }
    assertThatThrownBy(() -> jobs.start(template("over", "x", 1))).isInstanceOf(ApiException.class)
        .satisfies(e -> assertThat(((ApiException) e).status().code()).isEqualTo(503));
  }

  @Test
  void totals_countRunningAndFinishedJobs_andRunningJobsShowProgress() throws Exception {
    JobFixtures.ScriptedFiller filler = new JobFixtures.ScriptedFiller(null);
    jobs(ONE, filler, noListing()).start(template("j1", "s-{0..3}", 4));
    eventually(() -> filler.pending.size() == 4);
    assertThat(jobs.totals().running()).isEqualTo(1);
    assertThat(jobs.runningJobs()).containsOnlyKeys("j1");
    assertThat(jobs.runningJobs().get("j1").owned()).isEqualTo(4);
    assertThat(jobs.runningJobs().get("j1").done()).isZero();
    filler.completeAll();
    awaitEnd("j1");
    JobTotals t = jobs.totals();
    assertThat(t.running()).isZero();
    assertThat(t.succeeded()).isEqualTo(1);
    assertThat(t.fetched()).isEqualTo(4);
    assertThat(t.bytesFetched()).isEqualTo(40);
    assertThat(jobs.runningJobs()).isEmpty();
  }

  @Test
  void totals_keepCountingJobsNoLongerKept() throws Exception {
    jobs(ONE, new JobFixtures.ScriptedFiller(n -> new FillResult(Outcome.ALREADY_CACHED, 0)), noListing());
    int n = TargetJobs.KEEP_FINISHED + 3;
    for (int i = 0; i < n; i++) {
      jobs.start(template("j" + i, "x", 1));
      awaitEnd("j" + i);
    }
    eventually(() -> jobs.list().size() == TargetJobs.KEEP_FINISHED);
    JobTotals t = jobs.totals();
    assertThat(t.succeeded()).isEqualTo(n);
    assertThat(t.cached()).isEqualTo(n);
    assertThat(t.owned()).isEqualTo(n);
  }

  @Test
  void finishedJobs_areKeptUpToTheLimit() throws Exception {
    jobs(ONE, new JobFixtures.ScriptedFiller(n -> new FillResult(Outcome.ALREADY_CACHED, 0)), noListing());
    for (int i = 0; i < TargetJobs.KEEP_FINISHED + 5; i++) {
      jobs.start(template("j" + i, "x", 1));
      awaitEnd("j" + i);
    }
    eventually(() -> jobs.list().size() == TargetJobs.KEEP_FINISHED);
    assertThat(jobs.get("j0")).isEmpty();
    assertThat(jobs.get("j" + (TargetJobs.KEEP_FINISHED + 4))).isPresent();
  }
}
