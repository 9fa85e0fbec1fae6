package io.granary.proxy.scrub;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.bucket.Bucket;
import io.granary.common.control.ControlClient;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.proxy.jobs.BucketJobs;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;

/**
 * {@code scrub} behind {@code /v1/jobs} (docs/protection.md#scrub): {@code {"kind":"scrub","bucket":"train"}} has
 * every target walk the bucket's records, re-hash every copy and repair what does not match. A bucket has one such
 * job, the latest scrub on each target: its id is {@code scrub-PROVIDER.BUCKET}. Targets hold the progress
 * ({@code GET /v1/scrub}); any proxy answers, summing it.
 */
public final class ScrubJobs extends BucketJobs<ScrubStatus> {
  static final String KIND = "scrub";
  static final String PREFIX = "scrub-";

  public ScrubJobs(ClusterMetadataHolder cluster, ControlClient client, ScheduledExecutorService timer) {
    super(cluster, client, timer, KIND, PREFIX, new Reports("/v1/scrub", "scrubs"),
        new Statuses<>(ScrubJobs::sum, ScrubStatus::ongoing, ScrubStatus::none),
        "a scrub cannot be aborted: it only reads, and repairs what it finds");
  }

  /** Sums the targets' scrubs of {@code b}; a target without one has state none (not asked, or restarted since). */
  static ScrubStatus sum(Bucket b, Map<String, JsonNode> answers) {
    List<ScrubStatus.Target> rows = new ArrayList<>();
    long[] n = new long[5]; // objects, bytes, corrupt, repaired, unrepairable
    boolean running = false;
    boolean failed = false;
    for (Map.Entry<String, JsonNode> e : answers.entrySet()) {
      JsonNode a = e.getValue();
      if (a.hasNonNull("problem")) {
        failed = true;
        rows.add(new ScrubStatus.Target(e.getKey(), "unknown", 0, 0, 0, 0, 0, a.path("problem").asText()));
        continue;
      }
      JsonNode s = null;
      for (JsonNode x : a.path("scrubs")) {
        if (x.path("bucket").asText().equals(b.key())) {
          s = x;
        }
      }
      if (s == null) {
        rows.add(new ScrubStatus.Target(e.getKey(), "none", 0, 0, 0, 0, 0, null));
        continue;
      }
      String state = s.path("state").asText();
      boolean ongoing = state.equals("queued") || state.equals("running");
      running |= ongoing;
      failed |= state.equals("failed");
      long[] t = {s.path("objects").asLong(), s.path("bytes").asLong(), s.path("corrupt").asLong(),
          s.path("repaired").asLong(), s.path("unrepairable").asLong()};
      for (int i = 0; i < n.length; i++) {
        n[i] += t[i];
      }
      rows.add(new ScrubStatus.Target(e.getKey(), ongoing ? "running" : state, t[0], t[1], t[2], t[3], t[4],
          s.path("error").isTextual() ? s.path("error").asText() : null));
    }
    String state = failed ? "failed" : running ? "running" : "succeeded";
    return new ScrubStatus(BucketJobs.idOf(PREFIX, b), KIND, b.toString(), state, n[0], n[1], n[2], n[3], n[4],
        rows);
  }
}
