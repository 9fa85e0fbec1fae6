package io.granary.proxy.scrub;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;

/**
 * A {@code scrub} job as {@code GET /v1/jobs/scrub-PROVIDER.BUCKET} answers it: each target's latest scrub of the
 * bucket, and their sum.
 *
 * @param id {@code scrub-ais.train}
 * @param kind {@code scrub}
 * @param bucket {@code ais://train}
 * @param state failed (a target's scrub failed, or a target did not answer), else running (a target's scrub is
 *     queued or running), else succeeded
 * @param objects objects checked, all targets
 * @param bytes bytes hashed (every copy of every object)
 * @param corrupt copies whose content did not match their checksum
 * @param repaired objects repaired (from a mirror copy, or dropped to be fetched again from their remote)
 * @param unrepairable objects with no intact copy and no remote
 * @param targets one row per target
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record ScrubStatus(String id, String kind, String bucket, String state, long objects, long bytes,
    long corrupt, long repaired, long unrepairable, List<Target> targets) {

  /** One target's part; {@code problem} says why it has none or why it failed. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Target(String target, String state, long objects, long bytes, long corrupt, long repaired,
      long unrepairable, String problem) {
  }

  boolean ongoing() {
    return state.equals("running");
  }

  /** Whether no target has a part: no such job. */
  boolean none() {
    return targets.stream().allMatch(t -> t.state().equals("none"));
  }
}
