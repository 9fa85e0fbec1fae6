package io.granary.proxy.jobs;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Sums the targets' snapshots of one job into its {@link JobStatus}. Pure: the caller gathers the parts.
 *
 * <p>State: running while any target that can tell runs (so awaiting a job waits for the rest of it even when a
 * target is lost, and a retry cannot overlap it); then failed, saying which target, if a target could not tell
 * (offline, unreachable, left the cluster, or restarted and lost the job); else aborted if any target was
 * aborted, failed if any failed, else succeeded. The error names a lost target as soon as it is lost. Totals are the selection's (every target walks it all); counts
 * are sums (each target counts only what it owns), so {@code done} reaches {@code total} at the end.
 */
final class JobAggregator {
  static final int MAX_FAILURES = 1000;

  private JobAggregator() {}

  /**
   * One participant: its snapshot, or why there is none.
   *
   * @param lost null when {@code snapshot} is present
   */
  record Part(String target, TargetSnapshot snapshot, String lost) {
    static Part of(TargetSnapshot s) {
      return new Part(s.target(), s, null);
    }

    static Part lost(String target, String why) {
      return new Part(target, null, why);
    }
  }

  static JobStatus aggregate(String id, List<Part> parts, Instant now) {
    TargetSnapshot any = parts.stream().map(Part::snapshot).filter(s -> s != null).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no target knows job " + id));
    long done = 0, fetched = 0, cached = 0, notFound = 0, failed = 0, bytes = 0, dropped = 0;
    Long total = null;
    Long bytesTotal = 0L;
    Instant started = null;
    Instant finished = null;
    boolean running = false, aborted = false, someFailed = false, allFinished = true;
    Set<String> errors = new LinkedHashSet<>();
    List<JobStatus.Failure> failures = new ArrayList<>();
    Map<String, JobStatus.TargetPart> targets = new TreeMap<>();
    for (Part p : parts) {
      TargetSnapshot s = p.snapshot();
      if (s == null) {
        errors.add(p.lost());
        bytesTotal = null;
        targets.put(p.target(), new JobStatus.TargetPart("lost", p.lost(), 0, 0, 0, 0, 0, 0, 0, false));
        continue;
      }
      done += s.done();
      fetched += s.fetched();
      cached += s.cached();
      notFound += s.notFound();
      failed += s.failed();
      bytes += s.bytesFetched();
      dropped += s.failuresDropped();
      if (total == null && s.selectionTotal() != null) {
        total = s.selectionTotal();
      }
      bytesTotal = bytesTotal == null || s.ownedBytes() == null ? null : bytesTotal + s.ownedBytes();
      started = started == null || (s.started() != null && s.started().isBefore(started)) ? s.started() : started;
      if (s.finished() == null) {
        allFinished = false;
      } else if (finished == null || s.finished().isAfter(finished)) {
        finished = s.finished();
      }
      running |= s.running();
      aborted |= "aborted".equals(s.state());
      someFailed |= "failed".equals(s.state());
      if (s.error() != null) {
        errors.add("target " + s.target() + ": " + s.error());
      }
      for (TargetSnapshot.Failure f : s.failures()) {
        if (failures.size() < MAX_FAILURES) {
          failures.add(new JobStatus.Failure(f.name(), f.error(), s.target()));
        } else {
          dropped++;
        }
      }
      targets.put(s.target(), new JobStatus.TargetPart(s.state(), s.error(), s.done(), s.fetched(), s.cached(),
          s.notFound(), s.failed(), s.bytesFetched(), s.walked(), s.walkComplete()));
    }
    boolean lost = parts.stream().anyMatch(p -> p.snapshot() == null);
    String state = running ? "running" : lost ? "failed" : aborted ? "aborted" : someFailed ? "failed" : "succeeded";
    if (!allFinished || "running".equals(state)) {
      finished = null;
    }
    Instant end = finished != null ? finished : now;
    double secs = started == null ? 0 : Math.max(0.001, Duration.between(started, end).toMillis() / 1000.0);
    double objRate = secs == 0 ? 0 : done / secs;
    double byteRate = secs == 0 ? 0 : bytes / secs;
    Long eta = "running".equals(state) && total != null && objRate > 0
        ? Long.valueOf((long) Math.ceil(Math.max(0, total - done) / objRate)) : null;
    return new JobStatus(id, any.kind(), any.bucket(), any.selection(), any.prefix(), any.template(), any.latest(),
        state,
        errors.isEmpty() ? null : String.join("; ", errors),
        new JobStatus.Objects(done, fetched, cached, notFound, failed, total),
        new JobStatus.Bytes(bytes, bytesTotal), new JobStatus.Rate(round(objRate), round(byteRate)), eta,
        List.copyOf(failures), dropped, started, finished, targets);
  }

  private static double round(double v) {
    return Math.round(v * 10) / 10.0;
  }
}
