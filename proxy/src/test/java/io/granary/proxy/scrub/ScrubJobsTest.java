package io.granary.proxy.scrub;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.bucket.Bucket;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** How targets' scrub reports ({@code GET /v1/scrub}) sum into a scrub job. */
class ScrubJobsTest {
  private static final Bucket TRAIN = Bucket.local("train");

  private static JsonNode report(String scrubs) throws Exception {
    return ClusterJson.mapper().readTree("{\"target\":\"t\",\"scrubs\":[" + scrubs + "]}");
  }

  private static String scrub(String bucket, String state, int objects, int corrupt, int repaired, int unrepairable) {
    return "{\"bucket\":\"" + bucket + "\",\"state\":\"" + state + "\",\"objects\":" + objects + ",\"bytes\":"
        + objects * 10 + ",\"corrupt\":" + corrupt + ",\"repaired\":" + repaired + ",\"unrepairable\":"
        + unrepairable + ",\"error\":null}";
  }

  @Test
  void sum_everyTargetDone_succeeded_withTotals_otherBucketsIgnored() throws Exception {
    Map<String, JsonNode> answers = new TreeMap<>();
    answers.put("t1", report(scrub("ais/train", "succeeded", 10, 2, 2, 0)));
    answers.put("t2", report(scrub("ais/train", "succeeded", 7, 1, 0, 1) + ","
        + scrub("ais/other", "running", 99, 9, 9, 9)));

    ScrubStatus s = ScrubJobs.sum(TRAIN, answers);

    assertThat(s.id()).isEqualTo("scrub-ais.train");
    assertThat(s.state()).isEqualTo("succeeded");
    assertThat(s).extracting(ScrubStatus::objects, ScrubStatus::bytes, ScrubStatus::corrupt, ScrubStatus::repaired,
        ScrubStatus::unrepairable).containsExactly(17L, 170L, 3L, 2L, 1L);
  }

  @Test
  void sum_queuedOrRunning_running_aTargetWithout_none_aSilentOne_failed() throws Exception {
    Map<String, JsonNode> answers = new TreeMap<>();
    answers.put("t1", report(scrub("ais/train", "queued", 0, 0, 0, 0)));
    answers.put("t2", report(""));
    ScrubStatus s = ScrubJobs.sum(TRAIN, answers);
    assertThat(s.state()).isEqualTo("running");
    assertThat(s.targets()).extracting(ScrubStatus.Target::state).containsExactly("running", "none");

    answers.put("t3", ClusterJson.mapper().readTree("{\"problem\":\"target t3 did not answer\"}"));
    assertThat(ScrubJobs.sum(TRAIN, answers).state()).isEqualTo("failed");
  }
}
