package io.granary.loader.report;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a run (or several merged runs) produced: a summary per operation plus what was run.
 *
 * @param durationSeconds wall time of the run; for merged runs the longest
 * @param ops summaries keyed by operation ({@code get}, {@code put}), in that order
 * @param loaders how many loaders' results this holds
 * @param workers total workers across them
 */
public record RunResult(double durationSeconds, Map<String, OpSummary> ops, String protocol, String bucket,
    int loaders, int workers) {

  public RunResult {
    ops = Collections.unmodifiableMap(new LinkedHashMap<>(ops));
  }

  /** Combines loaders that ran at the same time, against the same cluster. */
  public static RunResult merge(List<RunResult> runs) {
    if (runs.isEmpty()) {
      throw new IllegalArgumentException("nothing to merge");
    }
    double duration = 0;
    Map<String, OpSummary> ops = new LinkedHashMap<>();
    int loaders = 0;
    int workers = 0;
    String protocol = runs.get(0).protocol();
    String bucket = runs.get(0).bucket();
    for (RunResult r : runs) {
      duration = Math.max(duration, r.durationSeconds());
      r.ops().forEach((k, v) -> ops.merge(k, v, OpSummary::merge));
      loaders += r.loaders();
      workers += r.workers();
      protocol = Objects.equals(protocol, r.protocol()) ? protocol : "mixed";
      bucket = Objects.equals(bucket, r.bucket()) ? bucket : "mixed";
    }
    // Throughput is over the longest run: the loaders' bytes all moved within it.
    double d = duration;
    ops.replaceAll((k, v) -> new OpSummary(v.op(), v.count(), v.bytes(), v.errors(), v.verified(), d, v.latency()));
    return new RunResult(duration, ops, protocol, bucket, loaders, workers);
  }
}
