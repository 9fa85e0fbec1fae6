package io.granary.target.metrics;

import io.granary.clustermap.bucket.Provider;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.metrics.NodeMetrics;
import io.granary.target.coldget.ColdObjects;
import io.granary.target.coldget.ColdStats;
import io.granary.target.jobs.JobTotals;
import io.granary.target.jobs.TargetJobs;
import io.granary.target.mirror.MirrorStats;
import io.granary.target.ec.EcStats;
import io.granary.target.ec.ErasureCoding;
import io.granary.target.mirror.Mirroring;
import io.granary.target.validation.ValidationStats;
import io.granary.target.rebalance.RebalanceStats;
import io.granary.target.rebalance.Rebalancer;
import io.granary.target.resilver.HealthChecker;
import io.granary.target.resilver.Resilver;
import io.granary.target.space.Capacity;
import io.granary.target.space.SpaceManager;
import io.granary.target.space.SpaceStats;
import io.granary.target.storage.Mountpath;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Histogram;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.ToLongBiFunction;

/**
 * Registers a target's metrics (besides the request and error metrics every node has), mostly as callbacks over
 * the counters the target already keeps: {@link ColdStats} (cold GETs and cache hits, by provider), the jobs'
 * counters ({@link TargetJobs#totals}), {@link SpaceStats} (LRU eviction), each mountpath's {@link Capacity},
 * {@link RebalanceStats} and the rebalance walk's state, and the cluster map's version and rebalance. The two
 * cold-GET latency histograms are recorded as fetches end. Names and their AIStore counterparts: docs/metrics.md.
 *
 * <p>Label sets are bounded: {@code provider} is a remote {@link Provider} ({@code aws}, {@code gcp}; every
 * one is exported from the start, at 0, so rates work from the first event); {@code kind}, {@code state} and
 * {@code outcome} are fixed words; {@code job} only appears on running jobs, at most {@code MAX_RUNNING} per
 * target. Buckets and object names are never labels.
 */
public final class TargetMetrics {
  /** Remote providers: the values of the {@code provider} label. */
  static final List<Provider> REMOTE = Arrays.stream(Provider.values()).filter(p -> p != Provider.AIS).toList();
  /** Seconds from the start of a fetch to the backend's first answer: a same-region GET to a slow backend. */
  static final double[] FIRST_BYTE_BUCKETS = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
      10, 30};
  /** Seconds of a whole fetch: a small object's round trip to many GiB over a slow link. */
  static final double[] FETCH_BUCKETS = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300,
      600};

  private TargetMetrics() {}

  public static NodeMetrics register(NodeMetrics m, ClusterMetadataHolder holder, ColdObjects cold,
      SpaceManager space, List<Mountpath> mountpaths, TargetJobs jobs, Rebalancer rebalancer) {
    m.clusterMap(holder);
    cold(m, cold.stats(), cold::fetchesInFlight, cold::waiters);
    jobs(m, jobs);
    space(m, space, mountpaths);
    rebalance(m, rebalancer);
    return m;
  }

  /**
   * Objects moved between this target's mountpaths (resilver walks and writes committed off their HRW mountpath),
   * whether a resilver runs, and mountpaths disabled after failed health checks: all read from atomics.
   */
  public static void resilver(NodeMetrics m, Resilver resilver, HealthChecker health) {
    m.counter("resilver_moved_objects", "Objects this target moved to their HRW mountpath (AIStore resilver.n)",
        resilver::totalMoved);
    m.counter("resilver_moved_bytes", "Bytes of those objects (AIStore resilver.size)", resilver::totalBytesMoved);
    m.gauge("resilver_running", "1 while a resilver walk runs on this target, else 0",
        () -> resilver.running() ? 1 : 0);
    m.counter("mountpath_failures", "Mountpaths this target disabled after a failed health check (I/O errors, a "
        + "vanished disk)", health::failures);
  }

  /** Checksum validation of warm GETs and scrubs (docs/protection.md). */
  public static void validation(NodeMetrics m, ValidationStats s) {
    m.counter("validation_failures", "Copies whose content did not match their recorded checksum, by who found them",
        new String[] {"found_by"}, cb -> {
          cb.call(s.getFailures(), "get");
          cb.call(s.scrubFailures(), "scrub");
        });
    m.counter("validation_repairs", "Corrupt copies repaired: from an intact copy on this target (mirror), rebuilt "
        + "from erasure-coding slices on other targets (ec), or dropped so the next GET fetches the object from its "
        + "remote (remote)", new String[] {"from"}, cb -> {
          cb.call(s.mirrorRepairs(), "mirror");
          cb.call(s.ecRepairs(), "ec");
          cb.call(s.remoteRepairs(), "remote");
        });
    m.counter("validation_unrepairable", "Objects found corrupt with no intact copy and no remote to repair from",
        s::unrepairable);
    m.counter("validation_quarantined", "Corrupt files moved into a mountpath's quarantine directory",
        s::quarantined);
  }

  /** N-way mirroring (docs/protection.md). */
  public static void mirror(NodeMetrics m, Mirroring mirroring) {
    MirrorStats s = mirroring.stats();
    m.counter("mirror_copies_made", "Mirror copies written and recorded on other mountpaths of this target",
        s::made);
    m.counter("mirror_copy_failures", "Mirror copies that could not be made (I/O error, no room, no intact source)",
        s::failures);
    m.gauge("mirror_queue_depth", "Objects waiting for their mirror copies or being copied", mirroring::queueDepth);
    m.counter("mirror_fallback_reads", "Reads served from a mirror copy because the main copy was missing or "
        + "unreadable", s::fallbackReads);
    m.counter("mirror_main_restored", "Main copies restored from a mirror copy", s::restoredMain);
    m.counter("mirror_copies_dropped", "Mirror copies removed: above mirror.copies, or on a leaving mountpath",
        s::dropped);
    m.counter("mirror_queue_overflows", "Objects left out of a full mirror queue, to a walk of their bucket",
        s::overflows);
  }

  /** Erasure coding across targets (docs/protection.md). */
  public static void ec(NodeMetrics m, ErasureCoding ec) {
    EcStats s = ec.stats();
    m.counter("ec_objects_encoded", "Object versions this target owns sent as D+P slices to their holders",
        s::encoded);
    m.counter("ec_objects_replicated", "Object versions below ec.objSizeLimit sent as P full replicas", s::replicated);
    m.counter("ec_encode_bytes", "Object bytes read to encode or replicate", s::encodeBytes);
    m.counter("ec_slices_sent", "Slices and replicas sent and stored by their holders", s::slicesSent);
    m.counter("ec_encode_failures", "Encodes that did not reach every holder (left unencoded for a later walk)",
        s::encodeFailures);
    m.counter("ec_too_few_targets", "Encodes skipped because the map has fewer than D+P+1 targets", s::tooFewTargets);
    m.counter("ec_rebuilds", "Objects rebuilt from slices or a replica (main copy restored, or a degraded read)",
        s::rebuilds);
    m.counter("ec_rebuild_reads_streamed", "GETs of a lost main copy served from its rebuild as it was decoded",
        s::rebuildsStreamed);
    m.counter("ec_rebuild_failures", "Reads of a lost main copy that could not be rebuilt (503 NotEnoughSlices or "
        + "RebuildFailed)", s::rebuildFailures);
    m.gauge("ec_slices_held", "Slices and replicas of other targets' objects stored on this target",
        () -> ec.slices().held());
    m.gauge("ec_queue_depth", "Objects waiting to be erasure coded or being encoded", ec::queueDepth);
    m.counter("ec_queue_overflows", "Objects left out of a full encode queue, to a walk of their bucket",
        s::overflows);
    m.counter("ec_audits", "Audits of an erasure-coded bucket done: its holders asked for the slices of the "
        + "objects this target owns", s::audits);
    m.counter("ec_slices_audited", "Slices a holder was asked about by an audit and answered for", s::slicesAudited);
    m.counter("ec_slices_corrupt", "Slices held here that a scrub found rotten, short or missing: removed, their "
        + "owners asked to send them again", s::slicesCorrupt);
    m.counter("ec_slices_missing", "Slices an audit found missing or not whole on their holder (sent to it "
        + "again)", s::slicesMissing);
    m.counter("ec_objects_resent", "Object versions whose slices an audit found missing, sent again to the holders "
        + "that lacked them only", s::resent);
    m.counter("ec_objects_reencoded", "Object versions sent again because the map moved their holders (a target "
        + "joined, left or was decommissioned); the former holders dropped theirs", s::reencoded);
    m.counter("ec_placement_walks", "Walks of an erasure-coded bucket done after a placement change settled",
        s::placementWalks);
  }

  /** Cold GETs, cache hits and misses per provider; fetches in flight and their waiters. */
  static void cold(NodeMetrics m, ColdStats cold, IntSupplier inFlight, LongSupplier waiters) {
    perProvider(m, "cold_get_fetches", "Objects fetched from a remote backend and cached (AIStore remote_get_count)",
        cold, ColdStats::fetches);
    perProvider(m, "cold_get_bytes", "Bytes fetched from remote backends and cached (AIStore "
        + "remote_get_bytes_total)", cold, ColdStats::bytes);
    perProvider(m, "cold_get_coalesced", "Cold GETs and job fills that joined a fetch already in flight", cold,
        ColdStats::coalesced);
    perProvider(m, "cold_get_loop_reads", "Fetches whose first remote read was sent and answered on the event loop "
        + "of the GET that asked (plain-HTTP S3 endpoints), not on the cold pool", cold, ColdStats::loopReads);
    perProvider(m, "cold_get_checksum_errors", "Fetches whose content did not match the remote checksum (AIStore "
        + "err_cksum_count)", cold, ColdStats::checksumErrors);
    perProvider(m, "cold_get_unverified", "Fetches committed with no remote checksum to verify them against (an S3 "
        + "multipart upload without a whole-object checksum)", cold, ColdStats::unverified);
    perProvider(m, "cold_get_failures", "Cold GET fetches that failed", cold, ColdStats::failures);
    perProvider(m, "cold_get_revalidations", "Cached copies checked against the remote backend", cold,
        ColdStats::revalidations);
    perProvider(m, "cold_get_version_changes", "Revalidations that found a new remote version (AIStore "
        + "remote_ver_change_count)", cold, ColdStats::versionChanges);
    perProvider(m, "cache_hits", "GETs of remote-bucket objects served from the cached copy", cold,
        ColdStats::hits);
    perProvider(m, "cache_misses", "GETs of remote-bucket objects that needed a fetch (not cached, stale or "
        + "evicted)", cold, ColdStats::misses);
    m.gauge("cold_get_in_flight", "Fetches from remote backends in flight", () -> inFlight.getAsInt());
    m.gauge("cold_get_waiters", "Requests (GETs, job fills) reading or awaiting the fetches in flight",
        () -> waiters.getAsLong());

    Histogram firstByte = m.histogram("cold_get_first_byte_seconds", "Time from a fetch's start to the "
        + "backend's first answer (status and headers)", FIRST_BYTE_BUCKETS, "provider");
    Histogram fetch = m.histogram("cold_get_duration_seconds", "Time from a fetch's start to its commit "
        + "(successful fetches)", FETCH_BUCKETS, "provider");
    DistributionDataPoint[] firstBytes = bind(firstByte);
    DistributionDataPoint[] fetches = bind(fetch);
    cold.timeWith(new ColdStats.Timings() {
      @Override
      public void firstByte(Provider provider, long nanos) {
        observe(firstBytes[provider.ordinal()], nanos);
      }

      @Override
      public void fetched(Provider provider, long nanos) {
        observe(fetches[provider.ordinal()], nanos);
      }
    });
  }

  /** Jobs by kind: running, finished by state, objects by outcome, bytes; each running job's progress. */
  static void jobs(NodeMetrics m, TargetJobs jobs) {
    String kind = TargetJobs.PREFETCH;
    m.gauge("jobs_running", "Jobs running on this target", new String[] {"kind"},
        cb -> cb.call(jobs.totals().running(), kind));
    m.counter("jobs_finished", "Jobs that ended on this target, by end state", new String[] {"kind", "state"},
        cb -> {
          JobTotals t = jobs.totals();
          cb.call(t.succeeded(), kind, "succeeded");
          cb.call(t.failed(), kind, "failed");
          cb.call(t.aborted(), kind, "aborted");
        });
    m.counter("job_objects", "Objects this target's jobs settled, by outcome", new String[] {"kind", "outcome"},
        cb -> {
          JobTotals t = jobs.totals();
          cb.call(t.fetched(), kind, "fetched");
          cb.call(t.cached(), kind, "cached");
          cb.call(t.notFound(), kind, "not_found");
          cb.call(t.errors(), kind, "error");
        });
    m.counter("job_bytes", "Bytes this target's jobs fetched from remote backends",
        new String[] {"kind"}, cb -> cb.call(jobs.totals().bytesFetched(), kind));
    m.gauge("job_owned_objects", "Names a running job walked that this target owns", new String[] {"kind", "job"},
        cb -> jobs.runningJobs().forEach((id, t) -> cb.call(t.owned(), kind, id)));
    m.gauge("job_done_objects", "Owned objects a running job has settled (fetched, cached, not found, failed)",
        new String[] {"kind", "job"}, cb -> jobs.runningJobs().forEach((id, t) -> cb.call(t.done(), kind, id)));
  }

  /** LRU eviction and capacity per mountpath. */
  static void space(NodeMetrics m, SpaceManager space, List<Mountpath> mountpaths) {
    SpaceStats s = space.stats();
    m.counter("eviction_runs", "LRU eviction runs finished", s::runs);
    m.counter("evicted_objects", "Objects evicted by LRU (AIStore lru_evict_count)", s::evictedObjects);
    m.counter("evicted_bytes", "Bytes evicted by LRU (AIStore lru_evict_bytes)", s::evictedBytes);
    m.counter("space_refusals", "Writes refused for lack of space (507)", s::refused);

    String[] mp = {"mountpath"};
    m.gauge("mountpath_used_bytes", "Bytes used on a mountpath", mp, cb -> {
      for (Mountpath p : mountpaths) {
        Capacity c = measure(space, p);
        if (c != null) {
          cb.call(c.usedBytes(), p.root().toString());
        }
      }
    });
    m.gauge("mountpath_capacity_bytes", "Capacity of a mountpath (the configured limit, or the file system size)",
        mp, cb -> {
          for (Mountpath p : mountpaths) {
            Capacity c = measure(space, p);
            if (c != null) {
              cb.call(c.capacityBytes(), p.root().toString());
            }
          }
        });
  }

  /**
   * Objects and bytes moved to and from other targets, failures, and the rebalance this target runs: all read from
   * atomics, never from {@link Rebalancer#progress} (which looks into every mountpath's metadata).
   */
  static void rebalance(NodeMetrics m, Rebalancer rebalancer) {
    RebalanceStats s = rebalancer.stats();
    m.counter("rebalance_sent_objects", "Objects this target sent to other targets that stored them (rebalance "
        + "walks, handoffs, get-from-neighbor pushes; AIStore reb.tx.n)", s::sent);
    m.counter("rebalance_sent_bytes", "Bytes of those objects (AIStore reb.tx.size)", s::bytesSent);
    m.counter("rebalance_received_objects", "Objects from other targets this target stored (AIStore reb.rx.n)",
        s::received);
    m.counter("rebalance_received_bytes", "Bytes of those objects (AIStore reb.rx.size)", s::bytesReceived);
    m.counter("rebalance_failures", "Objects this target could not move to their owners (rebalance walks, "
        + "handoffs); a walk that failed outright counts one", s::failures);
    m.counter("rebalance_neighbor_reads", "Reads of objects not yet moved here that the target still holding them "
        + "answered, relayed through this one or redirected there (get-from-neighbor)", s::neighborReads);
    m.gauge("rebalance_walking", "1 while a rebalance walk runs on this target, else 0",
        () -> rebalancer.walking() ? 1 : 0);
    m.gauge("rebalance_remaining_bytes", "Bytes the running rebalance walk found to move and has not sent yet (0 "
        + "when none runs)", rebalancer::remainingBytes);
    m.gauge("rebalance_pending_handoffs", "Objects written here that another target owns, not yet handed on",
        rebalancer::pendingHandoffs);
    m.gauge("rebalance_id", "Id of the latest rebalance this target took part in since it started (0: none)",
        rebalancer::latestId);
  }

  private static void perProvider(NodeMetrics m, String name, String help, ColdStats cold,
      ToLongBiFunction<ColdStats, Provider> count) {
    m.counter(name, help, new String[] {"provider"}, cb -> {
      for (Provider p : REMOTE) {
        cb.call(count.applyAsLong(cold, p), p.wireName());
      }
    });
  }

  /** The histogram's data point of each provider, indexed by ordinal (AIS's stays null: never observed). */
  private static DistributionDataPoint[] bind(Histogram h) {
    DistributionDataPoint[] points = new DistributionDataPoint[Provider.values().length];
    for (Provider p : REMOTE) {
      points[p.ordinal()] = h.labelValues(p.wireName());
    }
    return points;
  }

  private static void observe(DistributionDataPoint point, long nanos) {
    if (point != null) {
      point.observe(nanos / 1e9);
    }
  }

  /** The capacity of {@code p} (no I/O beyond a statvfs, see SpaceManager), or null when it cannot be measured. */
  private static Capacity measure(SpaceManager space, Mountpath p) {
    try {
      return space.capacity(p);
    } catch (IOException | RuntimeException e) {
      return null; // the space checker logs this; a scrape just leaves the series out
    }
  }
}
