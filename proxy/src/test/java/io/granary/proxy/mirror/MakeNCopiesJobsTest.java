package io.granary.proxy.mirror;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.Provider;
import io.granary.common.error.NoSuchJobException;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** How targets' mirror reports ({@code GET /v1/mirror}) sum into a make-n-copies job, and its ids. */
class MakeNCopiesJobsTest {
  private static final Bucket TRAIN = Bucket.local("train");

  private static JsonNode json(String s) throws Exception {
    return ClusterJson.mapper().readTree(s);
  }

  private static String walk(int examined, int queued, boolean running) {
    return "{\"bucket\":\"ais/train\",\"copies\":2,\"examined\":" + examined + ",\"queued\":" + queued
        + ",\"running\":" + running + "}";
  }

  private static JsonNode report(int depth, String walks) throws Exception {
    return json("{\"target\":\"t\",\"queueDepth\":" + depth + ",\"walks\":[" + walks + "]}");
  }

  @Test
  void id_namesProviderAndBucket_andBack() {
    assertThat(MakeNCopiesJobs.idOf(TRAIN)).isEqualTo("mnc-ais.train");
    assertThat(MakeNCopiesJobs.bucketOf("mnc-ais.train")).isEqualTo(TRAIN);
    assertThat(MakeNCopiesJobs.bucketOf("mnc-aws.data.set")).isEqualTo(new Bucket(Provider.AWS, "data.set"));
    assertThatThrownBy(() -> MakeNCopiesJobs.bucketOf("mnc-train")).isInstanceOf(NoSuchJobException.class);
  }

  @Test
  void sum_everyWalkDoneAndQueuesEmpty_succeeded_withTotals() throws Exception {
    Map<String, JsonNode> answers = new TreeMap<>();
    answers.put("t1", report(0, walk(10, 4, false)));
    answers.put("t2", report(0, walk(7, 7, false)
        + ",{\"bucket\":\"ais/other\",\"copies\":3,\"examined\":99,\"queued\":99,\"running\":true}"));

    MakeNCopiesStatus s = MakeNCopiesJobs.sum(TRAIN, answers);

    assertThat(s.state()).isEqualTo("succeeded");
    assertThat(s.examined()).isEqualTo(17);
    assertThat(s.queued()).isEqualTo(11);
    assertThat(s.copies()).isEqualTo(2);
    assertThat(s.targets()).extracting(MakeNCopiesStatus.Target::state).containsExactly("succeeded", "succeeded");
  }

  @Test
  void sum_aWalkRunningOrAQueueNotEmpty_running_aTargetSilent_failed() throws Exception {
    Map<String, JsonNode> answers = new TreeMap<>();
    answers.put("t1", report(3, walk(10, 4, false)));
    answers.put("t2", report(0, ""));
    assertThat(MakeNCopiesJobs.sum(TRAIN, answers).state()).isEqualTo("running");
    assertThat(MakeNCopiesJobs.sum(TRAIN, answers).targets()).extracting(MakeNCopiesStatus.Target::state)
        .containsExactly("running", "none");

    answers.put("t3", json("{\"problem\":\"target t3 did not answer\"}"));
    assertThat(MakeNCopiesJobs.sum(TRAIN, answers).state()).isEqualTo("failed");
  }
}
