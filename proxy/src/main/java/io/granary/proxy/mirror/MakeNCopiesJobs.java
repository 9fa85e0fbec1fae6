package io.granary.proxy.mirror;

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
 * {@code make-n-copies} behind {@code /v1/jobs} (docs/protection.md): every target walks a bucket's records and
 * adds or removes mirror copies, by itself when {@code mirror.copies} changes, or when asked with
 * {@code {"kind":"make-n-copies","bucket":"train","provider":"ais"}}. A bucket has one such job, the latest walk on
 * each target: its id is {@code mnc-PROVIDER.BUCKET}. Targets hold the progress ({@code GET /v1/mirror}); any proxy
 * answers, summing it.
 */
public final class MakeNCopiesJobs extends BucketJobs<MakeNCopiesStatus> {
  static final String KIND = "make-n-copies";
  static final String PREFIX = "mnc-";

  public MakeNCopiesJobs(ClusterMetadataHolder cluster, ControlClient client, ScheduledExecutorService timer) {
    super(cluster, client, timer, KIND, PREFIX, new Reports("/v1/mirror", "walks"),
        new Statuses<>(MakeNCopiesJobs::sum, MakeNCopiesStatus::ongoing, MakeNCopiesStatus::none),
        "a make-n-copies job cannot be aborted: set mirror.copies back (PATCH /v1/buckets/BUCKET) and its walk "
            + "removes the copies again");
  }

  /** The job id of a bucket's make-n-copies. */
  static String idOf(Bucket b) {
    return BucketJobs.idOf(PREFIX, b);
  }

  /** The bucket of a job id; 404 NoSuchJob for an id that names none. */
  static Bucket bucketOf(String id) {
    return BucketJobs.bucketOf(PREFIX, id);
  }

  /** Sums the targets' walks of {@code b}; a target without one has state none (it has not started, or restarted). */
  static MakeNCopiesStatus sum(Bucket b, Map<String, JsonNode> answers) {
    List<MakeNCopiesStatus.Target> rows = new ArrayList<>();
    long examined = 0;
    long queued = 0;
    long depth = 0;
    int copies = 0;
    boolean running = false;
    boolean failed = false;
    for (Map.Entry<String, JsonNode> e : answers.entrySet()) {
      JsonNode a = e.getValue();
      if (a.hasNonNull("problem")) {
        failed = true;
        rows.add(new MakeNCopiesStatus.Target(e.getKey(), "unknown", 0, 0, 0, a.path("problem").asText()));
        continue;
      }
      long d = a.path("queueDepth").asLong();
      depth += d;
      JsonNode walk = null;
      for (JsonNode w : a.path("walks")) {
        if (w.path("bucket").asText().equals(b.key())) {
          walk = w;
        }
      }
      if (walk == null) {
        rows.add(new MakeNCopiesStatus.Target(e.getKey(), "none", 0, 0, d, null));
        continue;
      }
      boolean mine = walk.path("running").asBoolean() || d > 0;
      running |= mine;
      examined += walk.path("examined").asLong();
      queued += walk.path("queued").asLong();
      copies = Math.max(copies, walk.path("copies").asInt());
      rows.add(new MakeNCopiesStatus.Target(e.getKey(), mine ? "running" : "succeeded",
          walk.path("examined").asLong(), walk.path("queued").asLong(), d, null));
    }
    String state = failed ? "failed" : running ? "running" : "succeeded";
    return new MakeNCopiesStatus(idOf(b), KIND, b.toString(), state, copies, examined, queued, depth, rows);
  }
}
