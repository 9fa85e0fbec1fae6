package io.granary.target.jobs;

/**
 * Counters of one or more jobs of one kind on one target, for metrics: how many jobs are in each state and what
 * their owned objects came to. Summing keeps counters monotonic as finished jobs are forgotten
 * ({@link TargetJobs#totals}).
 *
 * @param running jobs running
 * @param succeeded jobs that ended succeeded
 * @param failed jobs that ended failed
 * @param aborted jobs that ended aborted
 * @param owned names walked that this target owns
 * @param fetched owned objects fetched from the remote
 * @param cached owned objects already cached and current
 * @param notFound owned objects missing on the remote
 * @param errors owned objects whose fill failed
 * @param bytesFetched bytes fetched from the remote
 */
public record JobTotals(long running, long succeeded, long failed, long aborted, long owned, long fetched,
    long cached, long notFound, long errors, long bytesFetched) {
  public static final JobTotals ZERO = new JobTotals(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

  /** Owned objects settled: fetched, cached, not found or failed. */
  public long done() {
    return fetched + cached + notFound + errors;
  }

  public JobTotals plus(JobTotals o) {
    return new JobTotals(running + o.running, succeeded + o.succeeded, failed + o.failed, aborted + o.aborted,
        owned + o.owned, fetched + o.fetched, cached + o.cached, notFound + o.notFound, errors + o.errors,
        bytesFetched + o.bytesFetched);
  }
}
