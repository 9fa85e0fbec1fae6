package io.granary.proxy.rebalance;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import io.granary.clustermap.Rebalance;
import io.granary.common.rebalance.RebalanceProgress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A rebalance across the cluster, as {@code GET /v1/jobs/rb-N} answers it (docs/rebalance.md is the reference).
 *
 * @param id {@code rb-N}
 * @param kind {@code rebalance}
 * @param state running, succeeded, failed (every target walked, some objects could not move), aborted, or
 *     superseded (a newer rebalance took over: see {@code supersededBy})
 * @param supersededBy the rebalance that took over, else null
 * @param objects object counts summed over targets
 * @param bytes byte counts summed over targets
 * @param bytesPerSecond sum of the targets' send rates
 * @param etaSeconds the slowest target's estimate while running, when every target has one; else null
 * @param waitingFor targets the rebalance still waits for, with why
 * @param failures objects that could not be moved (the first of each target's)
 * @param started when the primary started it
 * @param finished when it finished or was aborted; null while running
 * @param targets each target's part, by id (absent for a superseded rebalance: targets keep only the latest)
 * @param attempt 1, or the automatic retry this is of a failed rebalance (2 for the first retry)
 * @param lastError why the latest failed attempt of this chain failed; null when none did
 * @param nextAttempt when failed: when the primary retries it by itself; null when it will not
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
record RebalanceStatus(String id, String kind, String state, String supersededBy, Objects objects, Bytes bytes,
    double bytesPerSecond, Long etaSeconds, List<String> waitingFor, List<Failure> failures, Instant started,
    Instant finished, Map<String, RebalanceProgress> targets, Integer attempt, String lastError,
    Instant nextAttempt) {

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  record Objects(long toMove, long moved, long notNeeded, long received, long failed) {
  }

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  record Bytes(long toMove, long moved, long received) {
  }

  record Failure(String name, String error, String target) {
  }

  boolean running() {
    return "running".equals(state);
  }

  /** Running, or failed with a retry scheduled: not over yet, for a client that waits for the end. */
  boolean ongoing() {
    return running() || ("failed".equals(state) && nextAttempt != null);
  }

  /** A rebalance a newer one took over. */
  static RebalanceStatus superseded(long id, Rebalance latest) {
    return new RebalanceStatus(Rebalance.JOB_PREFIX + id, "rebalance", "superseded", latest.jobId(), null, null, 0,
        null, List.of(), List.of(), null, null, null, null, null, null);
  }

  /** The latest rebalance, from its targets' answers. */
  static RebalanceStatus of(RebalanceView view) {
    Rebalance r = view.rebalance();
    long toMove = 0;
    long moved = 0;
    long notNeeded = 0;
    long received = 0;
    long failed = 0;
    long bytesToMove = 0;
    long bytesMoved = 0;
    long bytesReceived = 0;
    double rate = 0;
    Long eta = 0L;
    List<Failure> failures = new ArrayList<>();
    Map<String, RebalanceProgress> parts = new TreeMap<>();
    for (TargetProgress.Answer a : view.answers().values()) {
      RebalanceProgress p = a.progress();
      if (p == null || p.rebalance() != r.id()) {
        eta = null;
        if (p != null) {
          parts.put(a.target().id(), p);
        }
        continue;
      }
      parts.put(a.target().id(), p);
      toMove += p.toMove();
      moved += p.sent();
      notNeeded += p.kept();
      received += p.received();
      failed += p.failed();
      bytesToMove += p.bytesToMove();
      bytesMoved += p.bytesSent();
      bytesReceived += p.bytesReceived();
      rate += RebalanceProgress.RUNNING.equals(p.state()) ? p.bytesPerSecond() : 0;
      eta = eta == null || p.etaSeconds() == null ? null : Math.max(eta, p.etaSeconds());
      p.failures().forEach(f -> failures.add(new Failure(f.object(), f.error(), a.target().id())));
    }
    String state = switch (r.state()) {
      case FINISHED -> "succeeded";
      case ABORTED -> "aborted";
      case RUNNING -> view.failed() ? "failed" : "running";
    };
    return new RebalanceStatus(r.jobId(), "rebalance", state, null,
        new Objects(toMove, moved, notNeeded, received, failed), new Bytes(bytesToMove, bytesMoved, bytesReceived),
        rate, r.running() ? eta : Long.valueOf(0), r.running() ? view.waitingFor() : List.of(), failures, r.started(),
        r.ended(), parts, r.attempt(), r.lastError(), "failed".equals(state) ? r.nextAttempt() : null);
  }
}
