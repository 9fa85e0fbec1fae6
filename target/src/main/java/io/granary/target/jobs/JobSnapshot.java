package io.granary.target.jobs;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.time.Instant;
import java.util.List;

/**
 * One target's progress of one job, as {@code GET /v1/jobs/ID} on the target answers it (proxies aggregate these;
 * docs/jobs.md). Counts cover only the objects this target owns.
 *
 * @param id job id
 * @param kind {@code prefetch}
 * @param bucket {@code s3://b}
 * @param target this target's id
 * @param state running, succeeded, failed or aborted
 * @param error why the job as a whole failed or stopped (listing error, placement change); null otherwise
 * @param selection names, prefix or template
 * @param prefix the prefix of a prefix job, else null
 * @param template the template of a template job, else null (names are not echoed: they can be long)
 * @param latest whether cached copies are revalidated
 * @param selectionTotal names in the whole selection (all targets) when known: up front for names and templates,
 *     at the end of the listing for a prefix; else null
 * @param walked names of the selection walked so far (the same walk on every target)
 * @param walkComplete whether the walk reached the end of the selection
 * @param owned names walked so far that this target owns
 * @param ownedBytes listed size of the owned objects (prefix jobs, once the listing is complete); else null
 * @param done owned objects settled: fetched + cached + notFound + errors
 * @param fetched fetched from the remote
 * @param cached already cached and current
 * @param notFound missing on the remote
 * @param failed failures: errors, plus not-found for names and templates (the user named those objects)
 * @param bytesFetched bytes fetched from the remote
 * @param failures the first {@value JobProgress#MAX_FAILURES} failures
 * @param failuresDropped failures not kept in {@code failures}
 * @param participants every target of the job
 * @param started when the job started here
 * @param finished when it ended here; null while running
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record JobSnapshot(String id, String kind, String bucket, String target, JobState state, String error,
    String selection, String prefix, String template, boolean latest, Long selectionTotal, long walked,
    boolean walkComplete, long owned, Long ownedBytes, long done, long fetched, long cached, long notFound,
    long failed, long bytesFetched, List<Failure> failures, long failuresDropped, List<String> participants,
    Instant started, Instant finished) {

  /** One object that could not be prefetched. */
  public record Failure(String name, String error) {
  }

  /** The same snapshot without its failure list (job listings; {@code failed} still counts them). */
  public JobSnapshot summary() {
    return new JobSnapshot(id, kind, bucket, target, state, error, selection, prefix, template, latest,
        selectionTotal, walked, walkComplete, owned, ownedBytes, done, fetched, cached, notFound, failed, bytesFetched,
        List.of(), failuresDropped, participants, started, finished);
  }
}
