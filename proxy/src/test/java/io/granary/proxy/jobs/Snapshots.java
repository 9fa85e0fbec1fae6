package io.granary.proxy.jobs;

import java.time.Instant;
import java.util.List;

/** Builds target snapshots for tests. */
final class Snapshots {
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  private Snapshots() {}

  /** A template job's snapshot of {@code total} names on {@code target}, with counts as given. */
  static TargetSnapshot of(String id, String target, String state, long total, long fetched, long cached,
      long failed, long bytes, List<String> participants, Instant finished) {
    List<TargetSnapshot.Failure> f = new java.util.ArrayList<>();
    for (int i = 0; i < failed; i++) {
      f.add(new TargetSnapshot.Failure(target + "-bad-" + i, "remote said 500"));
    }
    return new TargetSnapshot(id, "prefetch", "s3://data", target, state, null, "template", null, "s-{0..99}",
        false, total, total, true, fetched + cached + failed, null, fetched + cached + failed, fetched, cached, 0,
        failed, bytes, f, 0, participants, T0, finished);
  }
}
