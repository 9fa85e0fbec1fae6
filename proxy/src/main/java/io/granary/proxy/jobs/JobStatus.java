package io.granary.proxy.jobs;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A job across the cluster, as {@code GET /v1/jobs/ID} answers it; docs/jobs.md is the reference for every field.
 *
 * @param id job id
 * @param kind {@code prefetch}
 * @param bucket {@code s3://b}
 * @param selection {@code names}, {@code prefix} or {@code template}
 * @param prefix the prefix of a prefix job, else null
 * @param template the template of a template job, else null
 * @param latest whether cached copies are revalidated against the remote
 * @param state running, succeeded, failed or aborted
 * @param error why the job as a whole failed or stopped (a target lost, a listing error), else null
 * @param objects object counts summed over targets
 * @param bytes bytes fetched and, when known, the listed size of the whole selection
 * @param rate averages since the start
 * @param etaSeconds estimated seconds left while running and the total is known, else null
 * @param failures up to {@link JobAggregator#MAX_FAILURES} failed objects; empty in listings
 * @param failuresDropped failed objects not in {@code failures}
 * @param started when the first target started
 * @param finished when the last target ended; null while running
 * @param targets each target's part, by target id
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
record JobStatus(String id, String kind, String bucket, String selection, String prefix, String template,
    boolean latest, String state, String error, Objects objects, Bytes bytes, Rate rate, Long etaSeconds, List<Failure> failures,
    long failuresDropped, Instant started, Instant finished, Map<String, TargetPart> targets) {

  /**
   * @param done objects settled: fetched + cached + not_found + errors
   * @param total objects in the selection, when known (names and templates at once, a prefix once listed)
   */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  record Objects(long done, long fetched, long cached, long notFound, long failed, Long total) {
  }

  /**
   * @param done bytes fetched from the remote (cached objects add nothing)
   * @param total listed size of the whole selection (prefix jobs once listed), else null
   */
  record Bytes(long done, Long total) {
  }

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  record Rate(double objectsPerSec, double bytesPerSec) {
  }

  record Failure(String name, String error, String target) {
  }

  /** One target's part; {@code state} is {@code lost} when the target cannot tell (offline, gone, restarted). */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  record TargetPart(String state, String error, long done, long fetched, long cached, long notFound, long failed,
      long bytes, long walked, boolean walkComplete) {
  }

  boolean running() {
    return "running".equals(state);
  }

  /** The same status without failures and per-target parts, for listings. */
  JobStatus summary() {
    return new JobStatus(id, kind, bucket, selection, prefix, template, latest, state, error, objects, bytes, rate,
        etaSeconds, List.of(), failuresDropped, started, finished, targets);
  }
}
