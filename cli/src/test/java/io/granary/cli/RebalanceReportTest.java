package io.granary.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.granary.clustermap.ClusterJson;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class RebalanceReportTest {
  private final RebalanceReport report = new RebalanceReport();

  /** A rebalance rb-7 as GET /v1/jobs/rb-7 answers it, t1 sending to t2; {@code t1Walked}: t1's walk is complete. */
  private static JsonNode status(String state, boolean t1Walked, long failed) throws Exception {
    return ClusterJson.mapper().readTree("""
        {"id":"rb-7","kind":"rebalance","state":"%s",
         "objects":{"to_move":40,"moved":10,"not_needed":2,"received":10,"failed":%d},
         "bytes":{"to_move":4194304,"moved":1048576,"received":1048576},
         "bytes_per_second":524288.0,"eta_seconds":6,
         "waiting_for":["t1 is running"],
         "failures":[{"name":"shards/a.tar","error":"checksum mismatch","target":"t1"}],
         "started":"2026-11-26T06:01:06.676357708Z",
         "targets":{
           "t1":{"target":"t1","rebalance":7,"state":"running","to_move":40,"walk_complete":%b,"sent":10,
                 "bytes_sent":1048576,"received":0,"failed":%d,"held_bytes":3145728,"holds_objects":true,
                 "failures":[]},
           "t2":{"target":"t2","rebalance":6,"state":"done","to_move":0,"walk_complete":true,"sent":0,
                 "bytes_sent":0,"received":10,"failed":0,"held_bytes":1048576,"holds_objects":true,
                 "failures":[]}}}
        """.formatted(state, failed, t1Walked, failed));
  }

  private static JsonNode counted(String state, long failed) throws Exception {
    JsonNode s = status(state, true, failed);
    ((ObjectNode) s.path("targets").path("t2")).put("rebalance", 7);
    return s;
  }

  private static String print(Consumer<PrintStream> f) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    f.accept(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void progress_walksComplete_drawsBarOverObjectsDoneOfToMove() throws Exception {
    String line = report.progress(counted("running", 0));
    assertThat(line).startsWith("rb-7 [").contains(" 30% 12/40 objects") // moved 10 + not needed 2
        .contains("1.0 MiB of 4.0 MiB moved").contains("512.0 KiB/s").contains("ETA 0:06")
        .contains("waiting for 1 target");
  }

  @Test
  void progress_targetStillWalking_hasNoBarNorTotal() throws Exception {
    String line = report.progress(status("running", false, 0));
    assertThat(line).doesNotContain("[").doesNotContain("/40").contains("12 objects (targets still counting)")
        .contains("1.0 MiB moved");
  }

  @Test
  void progress_ended_hasNoRateNorEta() throws Exception {
    String line = report.progress(counted("succeeded", 0));
    assertThat(line).contains("12/40").doesNotContain("/s").doesNotContain("ETA").doesNotContain("waiting");
  }

  @Test
  void walksComplete_targetOnAnOlderRebalance_isFalse() throws Exception {
    assertThat(RebalanceReport.walksComplete(status("running", true, 0))).isFalse();
    assertThat(RebalanceReport.walksComplete(counted("running", 0))).isTrue();
  }

  @Test
  void outcome_succeeded_isZero_failedAndAbortedAreOne() throws Exception {
    assertThat(report.outcome(counted("succeeded", 0), new PrintStream(new ByteArrayOutputStream()))).isZero();
    assertThat(report.outcome(counted("failed", 1), new PrintStream(new ByteArrayOutputStream()))).isOne();
    assertThat(report.outcome(counted("aborted", 0), new PrintStream(new ByteArrayOutputStream()))).isOne();
  }

  @Test
  void outcome_failed_namesTheFailedObjectAndItsTarget() throws Exception {
    JsonNode s = counted("failed", 1);
    String out = print(o -> report.outcome(s, o));
    assertThat(out).contains("rebalance rb-7 failed: 10 moved (1.0 MiB), 2 not needed, 10 received, 1 failed")
        .contains("granary rebalance start tries again")
        .contains("failed: shards/a.tar: checksum mismatch (on t1)").doesNotContain("more");
  }

  @Test
  void details_failedWithARetryScheduled_showsAttemptLastErrorAndWhenItIsRetried() throws Exception {
    ObjectNode s = (ObjectNode) counted("failed", 1);
    s.put("attempt", 2).put("last_error", "rb-7: t1: 1 object could not be moved")
        .put("next_attempt", "2026-11-26T06:02:10.5Z");
    String out = print(o -> report.details(s, o));
    assertThat(out).contains("attempt 2, last error: rb-7: t1: 1 object could not be moved")
        .contains("the primary retries it by itself at 2026-11-26T06:02:10Z (attempt 3)");
    assertThat(print(o -> report.outcome(s, o))).contains("rebalance rb-7 failed (attempt 2)")
        .doesNotContain("rebalance start");
  }

  @Test
  void outcome_moreFailuresThanListed_countsTheRest() throws Exception {
    JsonNode s = counted("failed", 5);
    String out = print(o -> report.outcome(s, o));
    assertThat(out).contains("... and 4 more");
  }

  @Test
  void details_running_showsSummaryWaitingForAndOneRowPerTarget() throws Exception {
    JsonNode s = status("running", false, 0);
    String out = print(o -> report.details(s, o));
    assertThat(out).contains("rebalance rb-7: running, started 2026-11-26T06:01:06Z")
        .contains("objects: 10 of 40 moved (targets still counting), 2 not needed, 0 failed, 10 received")
        .contains("bytes:   1.0 MiB of 4.0 MiB moved, 512.0 KiB/s, ETA 0:06")
        .contains("waiting for: t1 is running");
    assertThat(out.lines().filter(l -> l.startsWith("t1 ")).findFirst().orElseThrow())
        .matches("t1\\s+running\\s+40\\s+10\\s+1\\.0 MiB\\s+0\\s+0\\s+3\\.0 MiB");
    assertThat(out.lines().filter(l -> l.startsWith("t2 ")).findFirst().orElseThrow())
        .as("a target still on the previous rebalance").contains("not started");
  }

  @Test
  void details_superseded_pointsToTheNewerRebalance() throws Exception {
    JsonNode s = ClusterJson.mapper().readTree("""
        {"id":"rb-2","kind":"rebalance","state":"superseded","superseded_by":"rb-3","bytes_per_second":0.0,
         "waiting_for":[],"failures":[]}""");
    assertThat(print(o -> report.details(s, o))).isEqualTo(
        "rebalance rb-2: superseded by rb-3 (granary rebalance show rb-3)" + System.lineSeparator());
    assertThat(report.objects(s)).isEqualTo("-");
  }

  @Test
  void objects_isDoneOfToMove_forTheJobList() throws Exception {
    assertThat(report.objects(counted("running", 1))).isEqualTo("13/40");
  }

  @Test
  void jobReportOf_picksTheReportByKind() throws Exception {
    assertThat(JobReport.of(counted("running", 0))).isInstanceOf(RebalanceReport.class);
    assertThat(JobReport.of(ClusterJson.mapper().readTree("{\"kind\":\"prefetch\"}")))
        .isInstanceOf(PrefetchReport.class);
  }
}
