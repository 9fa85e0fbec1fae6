package io.granary.target.jobs;

import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.api.ObjectAddress;
import io.granary.common.error.BadRequestException;
import io.granary.common.error.ConflictException;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.target.coldget.CacheFiller;
import io.granary.backend.RemoteBuckets;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * This target's jobs: starts prefetch jobs that proxies send, answers their snapshots and aborts them. Running
 * jobs are bounded ({@link #MAX_RUNNING}; more answer 503 Busy); the last {@link #KEEP_FINISHED} finished jobs are
 * kept so their outcome can be read after they end. Lost on restart (the proxy then reports the job failed).
 *
 * <p>Each running job's walker has its own thread from a pool of {@link #MAX_RUNNING}, because a walk blocks for
 * the whole job (remote listing, waiting for a fill slot) and must not hold a slot of the disk or request pools.
 * Every method is quick and non-blocking, so HTTP handlers call them on the event loop.
 */
public final class TargetJobs implements AutoCloseable {
  /** The kind of every job this target runs so far (the {@code kind} of {@link JobSnapshot}). */
  public static final String PREFETCH = "prefetch";
  public static final int DEFAULT_CONCURRENCY = 8;
  public static final int MAX_CONCURRENCY = 64;
  static final int MAX_RUNNING = 8;
  static final int KEEP_FINISHED = 100;

  private final String nodeId;
  private final ClusterMetadataHolder holder;
  private final CacheFiller filler;
  private final RemoteLister lister;
  private final Clock clock;
  private final int defaultConcurrency;
  private final int maxConcurrency;
  private final ThreadPoolExecutor walkers;
  private final Map<String, PrefetchJob> jobs = new LinkedHashMap<>(); // in start order; guarded by this
  private JobTotals forgotten = JobTotals.ZERO; // the jobs prune() dropped; guarded by this

  /**
   * @param defaultConcurrency fills in flight per job when the request names none
   * @param maxConcurrency the most fills in flight per job, whatever the request asks
   */
  public TargetJobs(String nodeId, ClusterMetadataHolder holder, CacheFiller filler, RemoteBuckets remotes,
      int defaultConcurrency, int maxConcurrency) {
    this(nodeId, holder, filler, (b, prefix, token) -> remotes.backend(b)
        .list(b.bucket().name(), prefix, null, null, token, RemoteLister.PAGE),
        Clock.systemUTC(), defaultConcurrency, maxConcurrency);
  }

  TargetJobs(String nodeId, ClusterMetadataHolder holder, CacheFiller filler, RemoteLister lister, Clock clock,
      int defaultConcurrency, int maxConcurrency) {
    if (defaultConcurrency < 1 || maxConcurrency < defaultConcurrency) {
      throw new IllegalArgumentException("need 1 <= default concurrency <= max concurrency, got "
          + defaultConcurrency + " and " + maxConcurrency);
    }
    this.nodeId = nodeId;
    this.holder = holder;
    this.filler = filler;
    this.lister = lister;
    this.clock = clock;
    this.defaultConcurrency = defaultConcurrency;
    this.maxConcurrency = maxConcurrency;
    this.walkers = new ThreadPoolExecutor(0, MAX_RUNNING, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
        new DefaultThreadFactory("jobs-" + nodeId, true));
  }

  /**
   * Starts a job.
   *
   * @throws BadRequestException for a local bucket or a bad template
   * @throws io.granary.common.error.BucketNotFoundException when this target does not know the bucket
   * @throws ConflictException when a job with this id exists
   * @throws ServiceUnavailableException when {@link #MAX_RUNNING} jobs are running
   */
  public synchronized JobSnapshot start(PrefetchSpec spec) {
    Bucket b = ObjectAddress.bucket(spec.bucket(), null);
    BucketProps bucket = holder.requireBucket(b);
    if (!bucket.isRemote()) {
      throw BadRequestException.invalidArgument("only remote buckets can be prefetched; " + b + " is local");
    }
    if (jobs.containsKey(spec.id())) {
      throw new ConflictException("JobExists", "job " + spec.id() + " already exists on target " + nodeId);
    }
    if (running() >= MAX_RUNNING) {
      throw new ServiceUnavailableException(ServiceUnavailableException.BUSY, "target " + nodeId + " already runs "
          + MAX_RUNNING + " jobs; retry when one ends", 30);
    }
    Selection selection;
    try {
      selection = Selection.of(spec, bucket, lister);
    } catch (IllegalArgumentException e) {
      throw BadRequestException.invalidArgument(e.getMessage());
    }
    int concurrency = spec.concurrency() == 0 ? defaultConcurrency : Math.min(spec.concurrency(), maxConcurrency);
    Ownership ownership = new Ownership(nodeId, b, () -> holder.require().placement());
    PrefetchJob job = new PrefetchJob(nodeId, spec, bucket, selection, ownership, filler, concurrency,
        new JobProgress(spec, nodeId, selection, clock));
    try {
      walkers.execute(() -> {
        try {
          job.run();
        } finally {
          prune();
        }
      });
    } catch (RejectedExecutionException e) {
      throw new ServiceUnavailableException(ServiceUnavailableException.BUSY,
          "target " + nodeId + " has no job thread free; retry shortly", 5);
    }
    jobs.put(spec.id(), job);
    prune();
    return job.progress().snapshot();
  }

  /** One job's snapshot, with its failures. */
  public synchronized Optional<JobSnapshot> get(String id) {
    return Optional.ofNullable(jobs.get(id)).map(j -> j.progress().snapshot());
  }

  /** Every job this target knows, oldest first, without failure lists. */
  public synchronized List<JobSnapshot> list() {
    List<JobSnapshot> out = new ArrayList<>(jobs.size());
    for (PrefetchJob j : jobs.values()) {
      out.add(j.progress().snapshot().summary());
    }
    return out;
  }

  /** Aborts a job (a finished one stays as it ended); empty when unknown. */
  public Optional<JobSnapshot> abort(String id) {
    PrefetchJob job;
    synchronized (this) {
      job = jobs.get(id);
    }
    if (job == null) {
      return Optional.empty();
    }
    job.abort("aborted by request");
    return Optional.of(job.progress().snapshot());
  }

  /**
   * Counters of every job (all {@link #PREFETCH}) this target started since it started: the jobs it keeps plus
   * those it has forgotten, so that the counts only grow. For metrics; quick (at most {@link #MAX_RUNNING} +
   * {@link #KEEP_FINISHED} jobs).
   */
  public synchronized JobTotals totals() {
    JobTotals t = forgotten;
    for (PrefetchJob j : jobs.values()) {
      t = t.plus(j.progress().totals());
    }
    return t;
  }

  /** The counters of each running job by id, oldest first (at most {@link #MAX_RUNNING}); for metrics. */
  public synchronized Map<String, JobTotals> runningJobs() {
    Map<String, JobTotals> out = new LinkedHashMap<>();
    for (PrefetchJob j : jobs.values()) {
      JobTotals t = j.progress().totals();
      if (t.running() > 0) {
        out.put(j.id(), t);
      }
    }
    return out;
  }

  private int running() {
    int n = 0;
    for (PrefetchJob j : jobs.values()) {
      if (!j.progress().state().finished()) {
        n++;
      }
    }
    return n;
  }

  /** Forgets the oldest finished jobs beyond {@link #KEEP_FINISHED}. */
  private synchronized void prune() {
    int finished = jobs.size() - running();
    for (Iterator<PrefetchJob> it = jobs.values().iterator(); it.hasNext() && finished > KEEP_FINISHED; ) {
      PrefetchJob j = it.next();
      if (j.progress().state().finished()) {
        forgotten = forgotten.plus(j.progress().totals());
        it.remove();
        finished--;
      }
    }
  }

  /** Aborts every running job and stops the walkers. */
  @Override
  public void close() {
    synchronized (this) {
      for (PrefetchJob j : jobs.values()) {
        j.abort("the target is shutting down");
      }
    }
    walkers.shutdownNow();
  }
}
