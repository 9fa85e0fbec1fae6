package io.granary.proxy.mirror;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;

/**
 * A {@code make-n-copies} job as {@code GET /v1/jobs/mnc-PROVIDER.BUCKET} answers it: each target's walk of the
 * bucket and its queue, and their sum.
 *
 * @param id {@code mnc-ais.train}
 * @param kind {@code make-n-copies}
 * @param bucket {@code ais://train}
 * @param state running (a walk runs, or its objects wait in a queue), succeeded, or failed (a target did not answer)
 * @param copies the setting the walks bring the objects to (the newest any target reports)
 * @param examined records the walks read, all targets
 * @param queued objects they queued for copies added or removed
 * @param queueDepth objects waiting in the targets' mirror queues now (every bucket)
 * @param targets one row per target
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record MakeNCopiesStatus(String id, String kind, String bucket, String state, int copies, long examined,
    long queued, long queueDepth, List<Target> targets) {

  /** One target's part; {@code problem} says why it has none (it did not answer). */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Target(String target, String state, long examined, long queued, long queueDepth, String problem) {
  }

  boolean ongoing() {
    return state.equals("running");
  }

  /** Whether no target has a part: no such job. */
  boolean none() {
    return targets.stream().allMatch(t -> t.state().equals("none"));
  }
}
