package io.granary.proxy.jobs;

import io.granary.common.error.NoSuchJobException;
import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.api.ObjectAddress;
import io.granary.common.control.ControlClient;
import io.granary.common.error.ApiException;
import io.granary.common.error.BadRequestException;
import io.granary.common.error.ConflictException;
import io.granary.common.error.RemoteApiException;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.membership.ClusterMetadataHolder;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Jobs as a proxy sees them. The proxy keeps no job state: targets hold their part of every job, so any proxy
 * answers for any job, and a proxy restart loses nothing. Every call fans out to the targets without blocking
 * (futures over the control client); {@link #await} re-asks on a timer.
 *
 * <p>A job's participants are the targets in placement when it started; each snapshot names them all, so a
 * participant that cannot answer (offline, gone, restarted and so without the job) is noticed: the job is then
 * failed, saying which target, and the other targets' parts are aborted (the job could not cover its selection).
 */
public final class ProxyJobs {
  private static final Logger log = LoggerFactory.getLogger(ProxyJobs.class);
  private static final SecureRandom RANDOM = new SecureRandom();
  static final Duration POLL = Duration.ofSeconds(1);
  static final Duration MAX_WAIT = Duration.ofSeconds(60);

  private final String nodeId;
  private final ClusterMetadataHolder cluster;
  private final TargetJobClient targets;
  private final ScheduledExecutorService timer;
  private final Clock clock;

  /** @param timer runs {@link #await}'s re-checks (short tasks only) */
  public ProxyJobs(ClusterMetadataHolder cluster, ControlClient client, ScheduledExecutorService timer) {
    this(cluster, new ControlTargetJobClient(client), timer, Clock.systemUTC());
  }

  ProxyJobs(ClusterMetadataHolder cluster, TargetJobClient targets, ScheduledExecutorService timer, Clock clock) {
    this.nodeId = cluster.nodeId();
    this.cluster = cluster;
    this.targets = targets;
    this.timer = timer;
    this.clock = clock;
  }

  /** Starts a prefetch job on every target in placement; completes with its id once all accepted. */
  CompletableFuture<String> start(PrefetchRequest r) {
    BucketProps props = cluster.requireBucket(r.bucket());
    if (!props.isRemote()) {
      throw BadRequestException.invalidArgument("only remote buckets can be prefetched; " + r.bucket()
          + " is a local (ais) bucket");
    }
    ClusterMap map = cluster.require().map();
    List<Node> placed = map.targets().values().stream().filter(n -> n.state().inPlacement()).toList();
    if (placed.isEmpty()) {
      throw new ServiceUnavailableException(ServiceUnavailableException.NO_TARGETS, "no target is in the cluster", 5);
    }
    for (Node t : placed) {
      if (t.state() == NodeState.OFFLINE) {
        throw new ServiceUnavailableException(ServiceUnavailableException.TARGET_OFFLINE, "target " + t.id()
            + " is offline: the objects it owns could not be prefetched; retry when it is back", 5);
      }
    }
    String id = newId();
    TargetJobSpec spec = r.toTarget(id, placed.stream().map(Node::id).toList());
    Map<Node, CompletableFuture<TargetSnapshot>> calls = new LinkedHashMap<>();
    for (Node t : placed) {
      calls.put(t, targets.start(t, spec));
    }
    return CompletableFuture.allOf(calls.values().toArray(CompletableFuture[]::new)).handle((v, err) -> {
      if (err == null) {
        log.info("node={} job={} prefetch {} ({}) started on {} targets", nodeId, id, r.bucket(),
            spec.names() != null ? "names" : spec.prefix() != null ? "prefix" : "template", placed.size());
        return id;
      }
      // One target refused: undo the others so no half-job runs, and say why.
      ApiException why = null;
      for (Map.Entry<Node, CompletableFuture<TargetSnapshot>> c : calls.entrySet()) {
        if (c.getValue().isCompletedExceptionally()) {
          why = why != null ? why : refusal(c.getKey(), c.getValue().handle((s, e) -> e).join());
        } else {
          targets.abort(c.getKey(), id);
        }
      }
      throw why;
    });
  }

  private static ApiException refusal(Node t, Throwable err) {
    Throwable cause = ControlClient.cause(err);
    if (cause instanceof ControlClient.RemoteCallException rce) {
      if (rce.status() == 503) {
        return new ServiceUnavailableException(rce.error().code(), "target " + t.id() + ": "
            + rce.error().message(), 5);
      }
      if (rce.status() < 500) {
        return new RemoteApiException(rce.status(), rce.error().code(), rce.error().message());
      }
    }
    return new ServiceUnavailableException(ServiceUnavailableException.TARGET_OFFLINE,
        "target " + t.id() + " did not accept the job: " + message(cause), 5);
  }

  /** The job's status across targets; fails with 404 when no target knows it. */
  CompletableFuture<JobStatus> status(String id) {
    return ask(t -> targets.get(t, id)).thenApply(answers -> {
      List<TargetSnapshot> found = new ArrayList<>();
      answers.values().forEach(a -> a.value().flatMap(o -> o).ifPresent(found::add));
      // A lost target does not stop the others: they finish their shares (cached for the retry), and the job
      // fails at its end only if the target is still lost then (a brief outage costs nothing).
      return aggregate(id, found, answers);
    });
  }

  /** The status once the job ends, or after {@code wait} (at most {@link #MAX_WAIT}), whichever comes first. */
  CompletableFuture<JobStatus> await(String id, Duration wait) {
    return awaitEnd(() -> status(id), JobStatus::running, wait, timer);
  }

  /**
   * What {@code status} completes with once {@code running} says the job ended, or after {@code wait} (at most
   * {@link #MAX_WAIT}), whichever comes first; asks again every {@link #POLL} on {@code timer} (short tasks only),
   * never blocking. Every kind of job waits this way.
   */
  public static <T> CompletableFuture<T> awaitEnd(Supplier<CompletableFuture<T>> status, Predicate<T> running,
      Duration wait, ScheduledExecutorService timer) {
    long deadline = System.nanoTime() + Math.min(wait.toNanos(), MAX_WAIT.toNanos());
    CompletableFuture<T> out = new CompletableFuture<>();
    poll(status, running, deadline, timer, out);
    return out;
  }

  private static <T> void poll(Supplier<CompletableFuture<T>> status, Predicate<T> running, long deadline,
      ScheduledExecutorService timer, CompletableFuture<T> out) {
    status.get().whenComplete((s, err) -> {
      long left = deadline - System.nanoTime();
      if (err != null) {
        out.completeExceptionally(err);
      } else if (!running.test(s) || left <= 0) {
        out.complete(s);
      } else {
        timer.schedule(() -> poll(status, running, deadline, timer, out), Math.min(left, POLL.toNanos()),
            TimeUnit.NANOSECONDS);
      }
    });
  }

  /** Every job any target knows, newest first, without failure lists. */
  CompletableFuture<List<JobStatus>> list() {
    return ask(targets::list).thenApply(answers -> {
      Map<String, List<TargetSnapshot>> byJob = new LinkedHashMap<>();
      answers.values().forEach(a -> a.value().ifPresent(l -> l.forEach(
          s -> byJob.computeIfAbsent(s.id(), k -> new ArrayList<>()).add(s))));
      // A target that answered the listing without a job no longer knows that job.
      Map<String, Answer<Optional<TargetSnapshot>>> known = new TreeMap<>();
      answers.forEach((t, a) -> known.put(t, new Answer<>(Optional.empty(), a.problem())));
      List<JobStatus> out = new ArrayList<>();
      for (Map.Entry<String, List<TargetSnapshot>> e : byJob.entrySet()) {
        out.add(aggregate(e.getKey(), e.getValue(), known).summary());
      }
      out.sort(Comparator.comparing(JobStatus::started, Comparator.nullsLast(Comparator.reverseOrder())));
      return out;
    });
  }

  /** Aborts the job on every target; then its status. */
  CompletableFuture<JobStatus> abort(String id) {
    return ask(t -> targets.abort(t, id)).thenCompose(answers -> {
      boolean known = answers.values().stream().anyMatch(a -> a.value().flatMap(o -> o).isPresent());
      if (!known) {
        throw new NoSuchJobException(id);
      }
      log.info("node={} job={} abort requested", nodeId, id);
      return status(id);
    });
  }

  /**
   * Starts a new job over what job {@code id} failed to fetch: its failed names; or, when it kept not every failed
   * name or failed as a whole, its whole prefix or template again (cached objects are skipped cheaply).
   */
  CompletableFuture<Map<String, String>> retry(String id) {
    return status(id).thenCompose(s -> {
      if (s.running()) {
        throw new ConflictException("JobRunning", "job " + id + " is still running; wait for it or abort it first");
      }
      boolean walkable = !"names".equals(s.selection());
      boolean incomplete = s.failuresDropped() > 0 || s.error() != null;
      PrefetchRequest r;
      if (incomplete && walkable) {
        r = new PrefetchRequest(ObjectAddress.bucket(s.bucket(), null), null, s.prefix(), s.template(), s.latest(), 0);
      } else if (!s.failures().isEmpty()) {
        Set<String> names = new LinkedHashSet<>();
        s.failures().forEach(f -> names.add(f.name()));
        r = new PrefetchRequest(ObjectAddress.bucket(s.bucket(), null), List.copyOf(names), null, null, s.latest(), 0);
      } else if (s.error() != null) {
        throw new ConflictException("NothingToRetry", "job " + id + " failed as a whole (" + s.error()
            + ") and a names job keeps no copy of its names: start it again");
      } else {
        throw new ConflictException("NothingToRetry", "job " + id + " has no failed objects to retry");
      }
      return start(r).thenApply(newId -> {
        log.info("node={} job={} retries job {}", nodeId, newId, id);
        return Map.of("id", newId, "retry_of", id);
      });
    });
  }

  // ------------------------------------------------------------------ fan-out

  /** One target's answer: a value, or why there is none (offline, or the call failed). */
  private record Answer<T>(Optional<T> value, String problem) {
  }

  private interface Call<T> {
    CompletableFuture<T> on(Node target);
  }

  /** Asks every target that may hold jobs (offline ones are not called); completes with every answer. */
  private <T> CompletableFuture<Map<String, Answer<T>>> ask(Call<T> call) {
    Map<String, Answer<T>> out = Collections.synchronizedMap(new TreeMap<>());
    List<CompletableFuture<Void>> calls = new ArrayList<>();
    for (Node t : cluster.require().map().targets().values()) {
      if (t.state() == NodeState.OFFLINE) {
        out.put(t.id(), new Answer<>(Optional.empty(), "target " + t.id() + " is offline"));
        continue;
      }
      CompletableFuture<T> f;
      try {
        f = call.on(t);
      } catch (RuntimeException e) {
        f = CompletableFuture.failedFuture(e);
      }
      calls.add(f.handle((v, err) -> {
        out.put(t.id(), err == null ? new Answer<>(Optional.ofNullable(v), null) : new Answer<>(Optional.empty(),
            "target " + t.id() + " did not answer: " + message(ControlClient.cause(err))));
        return null;
      }));
    }
    return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).thenApply(v -> out);
  }

  private JobStatus aggregate(String id, List<TargetSnapshot> found,
      Map<String, Answer<Optional<TargetSnapshot>>> answers) {
    if (found.isEmpty()) {
      Optional<String> problem = answers.values().stream().map(Answer::problem).filter(p -> p != null).findFirst();
      if (problem.isPresent()) {
        throw new ServiceUnavailableException(ServiceUnavailableException.TARGET_OFFLINE,
            "no reachable target knows job " + id + "; " + problem.get(), 5);
      }
      throw new NoSuchJobException(id);
    }
    Set<String> participants = new LinkedHashSet<>();
    found.forEach(s -> participants.addAll(s.participants()));
    found.forEach(s -> participants.add(s.target()));
    List<JobAggregator.Part> parts = new ArrayList<>();
    for (String p : participants) {
      Optional<TargetSnapshot> snap = found.stream().filter(s -> s.target().equals(p)).findFirst();
      if (snap.isPresent()) {
        parts.add(JobAggregator.Part.of(snap.get()));
        continue;
      }
      Answer<Optional<TargetSnapshot>> a = answers.get(p);
      String why = a == null ? "target " + p + " left the cluster"
          : a.problem() != null ? a.problem()
          : "target " + p + " no longer knows the job (restarted, or dropped it among older jobs)";
      parts.add(JobAggregator.Part.lost(p, why));
    }
    return JobAggregator.aggregate(id, parts, clock.instant());
  }

  private static String message(Throwable t) {
    return t.getMessage() == null ? t.toString() : t.getMessage();
  }

  /** A short random id: 12 hex digits, unique enough for a job table kept in memory. */
  private static String newId() {
    byte[] b = new byte[6];
    RANDOM.nextBytes(b);
    return "pf-" + HexFormat.of().formatHex(b);
  }
}
