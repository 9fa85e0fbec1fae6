package io.granary.proxy.jobs;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.time.Instant;
import java.util.List;

/**
 * One target's progress of a job, as targets answer {@code GET /v1/jobs/ID}; the JSON form of
 * {@code io.granary.target.jobs.JobSnapshot}, whose Javadoc defines each field. Unknown fields are ignored, so
 * targets may add some.
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
record TargetSnapshot(String id, String kind, String bucket, String target, String state, String error,
    String selection, String prefix, String template, boolean latest, Long selectionTotal, long walked,
    boolean walkComplete, long owned, Long ownedBytes, long done, long fetched, long cached, long notFound,
    long failed, long bytesFetched, List<Failure> failures, long failuresDropped, List<String> participants,
    Instant started, Instant finished) {
  TargetSnapshot {
    failures = failures == null ? List.of() : List.copyOf(failures);
    participants = participants == null ? List.of() : List.copyOf(participants);
  }

  record Failure(String name, String error) {
  }

  boolean running() {
    return "running".equals(state);
  }
}
