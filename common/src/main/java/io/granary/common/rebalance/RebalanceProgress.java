package io.granary.common.rebalance;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.time.Instant;
import java.util.List;

/**
 * One target's part of a rebalance, as {@code GET /v1/rebalance} on the target answers it; proxies aggregate these
 * into the job's status, and the primary decides from them when the rebalance is finished (docs/rebalance.md).
 *
 * @param target the target's id
 * @param rebalance the rebalance (generation) these counts are for; 0 when the target has run none
 * @param state {@code running} (walking or moving), {@code done} (holds nothing misplaced), {@code failed} (walked
 *     everything, some objects could not be moved: see {@code failures}), {@code aborted}, {@code idle} (never ran)
 * @param toMove misplaced objects found when the walk started (what is left to move then)
 * @param bytesToMove their bytes
 * @param walked objects examined so far
 * @param walkComplete whether every mountpath has been walked
 * @param sent copies stored by their receivers
 * @param bytesSent bytes of those copies
 * @param kept copies a receiver did not need (it held the same or a newer version, or the object was deleted there)
 * @param received copies this target stored from other targets since this rebalance started here
 * @param bytesReceived bytes of those copies
 * @param failed objects that could not be moved
 * @param failures the first of them, with why
 * @param pendingHandoffs objects written here that another target owns, not yet sent on
 * @param heldBytes bytes of objects this target holds now
 * @param holdsObjects whether it holds any object or multipart upload at all (false: a leaving target is drained)
 * @param roomBytes bytes this target can take before its high watermark
 * @param bytesPerSecond send rate since the walk started
 * @param etaSeconds seconds to move what is left at that rate; null when unknown
 * @param bandwidthCap bytes per second this target may send, 0 when uncapped
 * @param started when this rebalance started here
 * @param finished when it ended here; null while running
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record RebalanceProgress(String target, long rebalance, String state, long toMove, long bytesToMove,
    long walked, boolean walkComplete, long sent, long bytesSent, long kept, long received, long bytesReceived,
    long failed, List<Failure> failures, long pendingHandoffs, long heldBytes, boolean holdsObjects,
    long roomBytes, double bytesPerSecond, Long etaSeconds, long bandwidthCap, Instant started, Instant finished) {
  public static final String RUNNING = "running";
  public static final String DONE = "done";
  public static final String FAILED = "failed";
  public static final String ABORTED = "aborted";
  public static final String IDLE = "idle";

  public RebalanceProgress {
    failures = failures == null ? List.of() : List.copyOf(failures);
  }

  /** One object that could not be moved. */
  public record Failure(String object, String error) {
  }

  /** Whether this target holds nothing misplaced for rebalance {@code id}. */
  @JsonIgnore
  public boolean doneWith(long id) {
    return rebalance == id && DONE.equals(state);
  }
}
