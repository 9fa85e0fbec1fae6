package io.granary.target.validation;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.target.checksum.FileHashing;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.mirror.MirrorRepair;
import io.granary.target.mirror.Mirroring;
import io.granary.target.storage.MirrorCopies;
import io.granary.target.storage.ObjectLocation;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.Quarantine;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-hashes every copy of one object on this target (the main copy and its mirror copies) against the checksum
 * its record keeps, and repairs what does not match: what a warm GET runs after a mismatch and a scrub runs for each
 * object. Blocking: disk threads and the scrub thread only.
 *
 * <p>Repair, in order of cost: with an intact copy left, the bad ones are quarantined ({@link Quarantine}: moved
 * aside, records kept) and mirroring restores them from it ({@link MirrorRepair#ensure}: the same routine that
 * restores a lost disk's copies); an erasure-coded object with no intact copy here is quarantined and rebuilt by its
 * owner from the slices (or replicas) other targets hold ({@link MainCopyRebuild}), as is one whose main file is
 * missing or short; a remote bucket's cached object with no intact copy is dropped, every copy, so the next GET
 * fetches it again from the remote; a local object with no intact copy and no slices is left as it is, counted and
 * logged as unrepairable (moving its only bytes aside would turn every GET into a 503 and lose the evidence; the
 * GET path keeps refusing to serve it whole). A missing or short file beside an intact copy is restored the same
 * way (nothing to hash); copies of other versions are left to mirroring, which handles them already.
 */
public final class CopyVerifier {
  private static final Logger log = LoggerFactory.getLogger(CopyVerifier.class);

  /** Who found the object to check: counted apart. */
  public enum Source { GET, SCRUB }

  /** How a check ended. */
  public enum Outcome {
    /** Every copy hashed to its checksum. */
    CLEAN,
    /** Bad copies were quarantined and restored from an intact one, or rebuilt from EC slices. */
    REPAIRED,
    /** No intact copy; the remote bucket's cached object was dropped, the next GET fetches it. */
    REFETCH,
    /** No intact copy and no remote: the object stays as it is. */
    UNREPAIRABLE,
    /** The object is gone, or its record keeps no checksum to compare with. */
    UNCHECKED
  }

  /**
   * @param copies copies hashed
   * @param bytes bytes hashed
   * @param corrupt copies whose bytes did not match
   */
  public record Verdict(Outcome outcome, int copies, long bytes, int corrupt) {
    static final Verdict UNCHECKED = new Verdict(Outcome.UNCHECKED, 0, 0, 0);
  }

  private final String nodeId;
  private final ObjectStore store;
  private final MirrorCopies copies;
  private final Quarantine quarantine;
  private final Mirroring mirroring;
  private final ValidationStats stats;
  private final MainCopyRebuild slices;

  /** @param slices rebuilds a main copy from other targets when none is intact here ({@link MainCopyRebuild#NONE}) */
  public CopyVerifier(String nodeId, ObjectStore store, Mirroring mirroring, ValidationStats stats,
      MainCopyRebuild slices) {
    this.nodeId = nodeId;
    this.store = store;
    this.copies = new MirrorCopies(store);
    this.quarantine = new Quarantine(store);
    this.mirroring = mirroring;
    this.stats = stats;
    this.slices = slices;
  }

  public ValidationStats stats() {
    return stats;
  }

  /** Checks and repairs {@code name} of {@code bucket}. */
  public Verdict verify(BucketProps bucket, String name, Source source) throws IOException {
    ObjectLocation loc = copies.locate(bucket, name);
    List<MirrorCopies.Held> held = copies.held(loc);
    if (held.isEmpty()) {
      return Verdict.UNCHECKED;
    }
    ObjectMeta version = MirrorRepair.newest(held);
    if (version.checksum().isEmpty()) {
      return Verdict.UNCHECKED; // nothing vouched for (a cold copy the remote gave no checksum for)
    }
    List<MirrorCopies.Held> good = new ArrayList<>();
    List<MirrorCopies.Held> bad = new ArrayList<>();
    long bytes = 0;
    int missing = 0;
    for (MirrorCopies.Held h : held) {
      if (!version.sameVersion(h.meta())) {
        continue;
      }
      if (!h.fileOk()) {
        missing++; // missing or short: no hash needed to know it is lost
        continue;
      }
      String actual;
      try {
        actual = FileHashing.hash(loc.on(h.mountpath()).file(), version.size(), version.checksumType());
      } catch (NoSuchFileException e) {
        continue; // removed meanwhile: mirroring's business
      } catch (IOException e) {
        actual = "unreadable (" + e + ")";
      }
      bytes += version.size();
      if (actual.equalsIgnoreCase(version.checksum())) {
        good.add(h);
        continue;
      }
      bad.add(h);
      (source == Source.GET ? stats.getFailures : stats.scrubFailures).incrementAndGet();
      log.warn("node={} bucket={} object={} mountpath={} copy={}: checksum mismatch found by {}: {} expected {}, "
          + "content hashes to {}", nodeId, bucket.bucket(), name, h.mountpath(), h.mirror() ? "mirror" : "main",
          source.name().toLowerCase(), version.checksumType().wireName(), version.checksum(), actual);
    }
    int checked = good.size() + bad.size();
    if (bad.isEmpty()) {
      if (missing > 0 && !good.isEmpty()) { // a lost file beside intact ones: restored as a read falling back would
        MirrorRepair.Result r = mirroring.repairNow(bucket, name);
        return new Verdict(r.outcome() == MirrorRepair.Outcome.FAILED ? Outcome.UNREPAIRABLE : Outcome.REPAIRED,
            checked, bytes, 0);
      }
      if (missing > 0 && bucket.protection().ecData() > 0) { // nothing intact here: the slices have it
        return new Verdict(rebuild(bucket, name, List.of(), "missing") ? Outcome.REPAIRED : Outcome.UNREPAIRABLE,
            checked, bytes, 0);
      }
      return new Verdict(Outcome.CLEAN, checked, bytes, 0);
    }
    return new Verdict(repair(bucket, name, loc, version, good, bad), checked, bytes, bad.size());
  }

  private Outcome repair(BucketProps bucket, String name, ObjectLocation loc, ObjectMeta version,
      List<MirrorCopies.Held> good, List<MirrorCopies.Held> bad) throws IOException {
    if (!good.isEmpty()) {
      List<Path> moved = quarantine(loc, version, bad);
      MirrorRepair.Result r = mirroring.repairNow(bucket, name);
      boolean ok = r.outcome() != MirrorRepair.Outcome.FAILED;
      (ok ? stats.mirrorRepairs : stats.unrepairable).addAndGet(ok ? bad.size() : 1);
      log.info("node={} bucket={} object={}: {} bad cop{} quarantined ({}), repair from the intact copy on {}: {}",
          nodeId, bucket.bucket(), name, moved.size(), moved.size() == 1 ? "y" : "ies", moved,
          good.get(0).mountpath(), r.outcome());
      return ok ? Outcome.REPAIRED : Outcome.UNREPAIRABLE;
    }
    if (bucket.protection().ecData() > 0) {
      List<Path> moved = quarantine(loc, version, bad);
      return rebuild(bucket, name, moved, "corrupt") ? Outcome.REPAIRED : Outcome.UNREPAIRABLE;
    }
    if (bucket.isRemote()) {
      long freed = store.evict(loc, version.mtime(), atime -> true);
      stats.remoteRepairs.incrementAndGet();
      log.info("node={} bucket={} object={}: no intact copy; cached object dropped ({} bytes), the next GET fetches "
          + "it from the remote", nodeId, bucket.bucket(), name, Math.max(freed, 0));
      return Outcome.REFETCH;
    }
    stats.unrepairable.incrementAndGet();
    log.error("node={} bucket={} object={}: no intact copy on this target and no remote: unrepairable, left in place "
        + "(GETs with validation refuse it)", nodeId, bucket.bucket(), name);
    return Outcome.UNREPAIRABLE;
  }

  /** Moves the bad copies aside; where they went. */
  private List<Path> quarantine(ObjectLocation loc, ObjectMeta version, List<MirrorCopies.Held> bad)
      throws IOException {
    List<Path> moved = new ArrayList<>();
    for (MirrorCopies.Held h : bad) {
      Path to = quarantine.quarantine(loc, h.mountpath(), version);
      if (to != null) {
        moved.add(to);
        stats.quarantined.incrementAndGet();
      }
    }
    return moved;
  }

  /**
   * Rebuilds the main copy from the slices other targets hold (the bad copies are quarantined already: a rebuild
   * that fails leaves a missing file, which the next read or scrub rebuilds again, and the evidence aside).
   */
  private boolean rebuild(BucketProps bucket, String name, List<Path> moved, String why) throws IOException {
    boolean ok = slices.rebuild(bucket, name);
    (ok ? stats.ecRepairs : stats.unrepairable).incrementAndGet();
    if (ok) {
      log.info("node={} bucket={} object={}: main copy {} (quarantined: {}), rebuilt from its EC slices", nodeId,
          bucket.bucket(), name, why, moved);
    } else {
      log.error("node={} bucket={} object={}: main copy {} (quarantined: {}) and no intact copy here; rebuilding it "
          + "from its EC slices failed: unrepairable for now", nodeId, bucket.bucket(), name, why, moved);
    }
    return ok;
  }
}
