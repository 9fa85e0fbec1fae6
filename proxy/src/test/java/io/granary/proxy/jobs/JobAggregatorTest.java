package io.granary.proxy.jobs;

import static io.granary.proxy.jobs.Snapshots.T0;
import static org.assertj.core.api.Assertions.assertThat;

import io.granary.proxy.jobs.JobAggregator.Part;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class JobAggregatorTest {
  private static final List<String> BOTH = List.of("t1", "t2");

  @Test
  void aggregate_sumsCountsAndKeepsTheSelectionTotal() {
    JobStatus s = JobAggregator.aggregate("j", List.of(
        Part.of(Snapshots.of("j", "t1", "running", 100, 20, 10, 0, 2000, BOTH, null)),
        Part.of(Snapshots.of("j", "t2", "running", 100, 15, 5, 0, 1500, BOTH, null))), T0.plusSeconds(10));
    assertThat(s.state()).isEqualTo("running");
    assertThat(s.objects()).isEqualTo(new JobStatus.Objects(50, 35, 15, 0, 0, 100L));
    assertThat(s.bytes()).isEqualTo(new JobStatus.Bytes(3500, null));
    assertThat(s.rate()).isEqualTo(new JobStatus.Rate(5.0, 350.0));
    assertThat(s.etaSeconds()).isEqualTo(10);
    assertThat(s.finished()).isNull();
    assertThat(s.targets()).containsOnlyKeys("t1", "t2");
    assertThat(s.targets().get("t2").done()).isEqualTo(20);
  }

  @Test
  void aggregate_allSucceeded_finishesAtTheLastEnd() {
    JobStatus s = JobAggregator.aggregate("j", List.of(
        Part.of(Snapshots.of("j", "t1", "succeeded", 4, 2, 0, 0, 20, BOTH, T0.plusSeconds(3))),
        Part.of(Snapshots.of("j", "t2", "succeeded", 4, 2, 0, 0, 20, BOTH, T0.plusSeconds(4)))), T0.plusSeconds(60));
    assertThat(s.state()).isEqualTo("succeeded");
    assertThat(s.finished()).isEqualTo(T0.plusSeconds(4));
    assertThat(s.rate().objectsPerSec()).isEqualTo(1.0); // over the job's own duration, not until now
    assertThat(s.etaSeconds()).isNull();
    assertThat(s.error()).isNull();
  }

  @Test
  void aggregate_statePrecedence() {
    assertThat(state("running", "failed")).isEqualTo("running");
    assertThat(state("aborted", "failed")).isEqualTo("aborted");
    assertThat(state("failed", "succeeded")).isEqualTo("failed");
    assertThat(state("succeeded", "succeeded")).isEqualTo("succeeded");
  }

  private static String state(String a, String b) {
    Instant fa = "running".equals(a) ? null : T0.plusSeconds(1);
    Instant fb = "running".equals(b) ? null : T0.plusSeconds(1);
    return JobAggregator.aggregate("j", List.of(Part.of(Snapshots.of("j", "t1", a, 4, 1, 0, 0, 0, BOTH, fa)),
        Part.of(Snapshots.of("j", "t2", b, 4, 1, 0, 0, 0, BOTH, fb))), T0.plusSeconds(2)).state();
  }

  @Test
  void aggregate_lostTarget_keepsRunningWhileOthersRun_thenFailsSayingWhich() {
    JobStatus s = JobAggregator.aggregate("j", List.of(
        Part.of(Snapshots.of("j", "t1", "running", 100, 20, 0, 0, 0, BOTH, null)),
        Part.lost("t2", "target t2 is offline")), T0.plusSeconds(1));
    assertThat(s.state()).isEqualTo("running");
    assertThat(s.error()).as("the loss is reported at once").isEqualTo("target t2 is offline");
    assertThat(s.targets().get("t2").state()).isEqualTo("lost");
    assertThat(s.finished()).isNull();

    JobStatus ended = JobAggregator.aggregate("j", List.of(
        Part.of(Snapshots.of("j", "t1", "succeeded", 100, 50, 0, 0, 0, BOTH, T0.plusSeconds(3))),
        Part.lost("t2", "target t2 is offline")), T0.plusSeconds(4));
    assertThat(ended.state()).isEqualTo("failed");
    assertThat(ended.error()).isEqualTo("target t2 is offline");
    assertThat(ended.finished()).isEqualTo(T0.plusSeconds(3));
  }

  @Test
  void aggregate_failures_carryTheTarget_andAreCapped() {
    List<Part> parts = new ArrayList<>();
    parts.add(Part.of(Snapshots.of("j", "t1", "failed", 2000, 0, 0, 700, 0, BOTH, T0.plusSeconds(1))));
    parts.add(Part.of(Snapshots.of("j", "t2", "failed", 2000, 0, 0, 600, 0, BOTH, T0.plusSeconds(1))));
    JobStatus s = JobAggregator.aggregate("j", parts, T0.plusSeconds(2));
    assertThat(s.objects().failed()).isEqualTo(1300);
    assertThat(s.failures()).hasSize(JobAggregator.MAX_FAILURES);
    assertThat(s.failuresDropped()).isEqualTo(300);
    assertThat(s.failures().get(0)).isEqualTo(new JobStatus.Failure("t1-bad-0", "remote said 500", "t1"));
    assertThat(s.summary().failures()).isEmpty();
  }

  @Test
  void aggregate_prefixBytesTotal_onlyWhenEveryTargetListedAll() {
    TargetSnapshot a = withOwnedBytes(Snapshots.of("j", "t1", "running", 10, 1, 0, 0, 5, BOTH, null), 300L);
    TargetSnapshot b = withOwnedBytes(Snapshots.of("j", "t2", "running", 10, 1, 0, 0, 5, BOTH, null), null);
    assertThat(JobAggregator.aggregate("j", List.of(Part.of(a), Part.of(b)), T0).bytes().total()).isNull();
    TargetSnapshot c = withOwnedBytes(b, 200L);
    assertThat(JobAggregator.aggregate("j", List.of(Part.of(a), Part.of(c)), T0).bytes().total()).isEqualTo(500);
  }

  private static TargetSnapshot withOwnedBytes(TargetSnapshot s, Long bytes) {
    return new TargetSnapshot(s.id(), s.kind(), s.bucket(), s.target(), s.state(), s.error(), "prefix", "p/", null,
        false, s.selectionTotal(), s.walked(), s.walkComplete(), s.owned(), bytes, s.done(), s.fetched(), s.cached(),
        s.notFound(), s.failed(), s.bytesFetched(), s.failures(), s.failuresDropped(), s.participants(), s.started(),
        s.finished());
  }
}
