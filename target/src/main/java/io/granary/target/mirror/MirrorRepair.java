package io.granary.target.mirror;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.MirrorCopies;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.MountpathSet;
import io.granary.target.storage.ObjectLocation;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings one object to the copies its bucket asks for, whatever state it is in: after a commit (no copies yet), a
 * read that fell back to a copy (main file lost), a lost or leaving mountpath (main or copies gone), or a changed
 * {@code mirror.copies} (copies to add or remove). One idempotent routine for all of them, so each caller only says
 * which object; running it twice, or on an object that needs nothing, changes nothing.
 *
 * <p>Steps: read the object's records on every served mountpath; the newest version whose file is intact is the one
 * kept. Without an intact main copy on the HRW mountpath it is restored from a copy. Copies already on available
 * mountpaths are kept; missing ones go to the next mountpaths in the object's HRW order
 * ({@link MountpathSet#mirrorPlaces}); the main record then lists them, and every other record of the object on
 * another mountpath (a copy beyond the setting, on a leaving mountpath, or a stray) is removed. Each step re-checks
 * the version under the object's lock ({@link MirrorCopies}): an overwrite or delete meanwhile ends the repair,
 * and the overwrite's own commit queues the next one.
 *
 * <p>Blocking: mirror workers and resilver threads only.
 */
public final class MirrorRepair {
  private static final Logger log = LoggerFactory.getLogger(MirrorRepair.class);

  /** How a repair ended. */
  public enum Outcome {
    /** The object had the copies asked for already. */
    IN_PLACE,
    /** Copies were made, recorded or removed, or the main copy restored. */
    REPAIRED,
    /** The object was overwritten, deleted, or its bucket changed meanwhile: its newer state is queued on its own. */
    CHANGED,
    /** No copy of the object is left, or its bucket is gone. */
    GONE,
    /** No intact copy to copy from, or a copy could not be made (I/O error, no room). */
    FAILED
  }

  /**
   * @param made copies written
   * @param dropped copies removed
   * @param restored whether the main copy was restored
   * @param bytes bytes written (copies made and a restored main copy)
   */
  public record Result(Outcome outcome, int made, int dropped, boolean restored, long bytes) {
    static Result of(Outcome o) {
      return new Result(o, 0, 0, false, 0);
    }
  }

  private final String nodeId;
  private final MirrorCopies copies;
  private final Function<BucketProps, BucketProps> current; // the bucket's props now, null when it is gone
  private final MirrorStats stats;

  /**
   * @param current given a bucket's props as the caller saw them, its props now: null when the bucket (that
   *     incarnation) is gone. The setting is read at repair time, so a job queued under an old one does what is
   *     asked now.
   */
  public MirrorRepair(String nodeId, MirrorCopies copies, Function<BucketProps, BucketProps> current,
      MirrorStats stats) {
    this.nodeId = nodeId;
    this.copies = copies;
    this.current = current;
    this.stats = stats;
  }

  /** Where the object lives now (its HRW mountpath). */
  ObjectLocation locate(BucketProps bucket, String name) {
    return copies.locate(bucket, name);
  }

  /** Brings {@code name} of {@code bucket} to its bucket's {@code mirror.copies} now. */
  public Result ensure(BucketProps bucket, String name) throws IOException {
    BucketProps props = current.apply(bucket);
    if (props == null) {
      return Result.of(Outcome.GONE);
    }
    ObjectLocation loc = copies.locate(props, name);
    List<MirrorCopies.Held> held = copies.held(loc);
    if (held.isEmpty()) {
      return Result.of(Outcome.GONE);
    }
    ObjectMeta version = newest(held);
    List<MirrorCopies.Held> intact = new ArrayList<>();
    for (MirrorCopies.Held h : held) {
      if (h.fileOk() && version.sameVersion(h.meta())) {
        intact.add(h);
      }
    }
    if (intact.isEmpty()) {
      stats.failures.incrementAndGet();
      log.warn("node={} bucket={} object={}: no intact copy left to mirror from ({} records, every file missing or "
          + "of another size)", nodeId, props.bucket(), name, held.size());
      return Result.of(Outcome.FAILED);
    }
    MountpathSet set = copies.mountpaths();
    List<Mountpath> places = places(loc, set, intact, props.protection().mirrorCopies());
    List<String> have = new ArrayList<>(); // ids of the places that hold an intact mirror copy, in places' order
    for (Mountpath mp : places) {
      if (intactMirrorOn(intact, mp)) {
        have.add(mp.id());
      }
    }
    boolean restored = false;
    if (on(intact, loc.mountpath()) == null) {
      if (!copies.restoreMain(loc, intact.get(0), have)) {
        return Result.of(Outcome.CHANGED);
      }
      restored = true;
      stats.restoredMain.incrementAndGet();
      log.info("node={} bucket={} object={} mountpath={}: main copy restored from the copy on {}", nodeId,
          props.bucket(), name, loc.mountpath(), intact.get(0).mountpath());
    }
    int made = 0;
    boolean failed = false;
    List<String> recorded = new ArrayList<>();
    for (Mountpath mp : places) {
      if (have.contains(mp.id())) {
        recorded.add(mp.id());
        continue;
      }
      try {
        if (!copies.addCopy(loc, mp, version)) {
          return new Result(Outcome.CHANGED, made, 0, restored, 0);
        }
        recorded.add(mp.id());
        made++;
        stats.made.incrementAndGet();
      } catch (IOException | RuntimeException e) {
        failed = true;
        stats.failures.incrementAndGet();
        log.warn("node={} bucket={} object={} mountpath={}: mirror copy failed: {}", nodeId, props.bucket(), name,
            mp, e.toString());
      }
    }
    if (!copies.record(loc, version, recorded)) {
      return new Result(Outcome.CHANGED, made, 0, restored, 0);
    }
    int dropped = 0;
    for (MirrorCopies.Held h : held) {
      if (h.mountpath() != loc.mountpath() && !recorded.contains(h.mountpath().id())
          && copies.dropCopy(loc, h.mountpath(), version)) {
        dropped++;
        stats.dropped.incrementAndGet();
      }
    }
    boolean changed = restored || made > 0 || dropped > 0 || !mainRecordListed(held, loc, recorded);
    return new Result(failed ? Outcome.FAILED : changed ? Outcome.REPAIRED : Outcome.IN_PLACE, made, dropped,
        restored, (made + (restored ? 1 : 0)) * version.size());
  }

  /**
   * The mountpaths the copies belong on: the available ones (not the HRW one) holding an intact copy already, then
   * the next in the object's HRW order, up to {@code copies - 1} (fewer when fewer mountpaths are available: the
   * data path keeps what it can, and the metrics say so).
   */
  static List<Mountpath> places(ObjectLocation loc, MountpathSet set, List<MirrorCopies.Held> intact, int copies) {
    int want = Math.max(0, Math.min(copies - 1, set.available().size() - 1));
    List<Mountpath> out = new ArrayList<>(want);
    for (MirrorCopies.Held h : intact) {
      if (out.size() < want && h.mirror() && h.mountpath() != loc.mountpath() && set.isAvailable(h.mountpath())) {
        out.add(h.mountpath());
      }
    }
    for (Mountpath mp : set.mirrorPlaces(loc.digest(), set.available().size())) {
      if (out.size() < want && !out.contains(mp)) {
        out.add(mp);
      }
    }
    return out;
  }

  /**
   * Whether the record {@code m}, read on {@code on} by a walk, shows its object needs {@link #ensure} under
   * {@code set} with {@code copies} asked for. One more point read (the main record) for a mirror copy's record.
   */
  public static boolean needsRepair(ObjectLocation loc, Mountpath on, ObjectMeta m, MountpathSet set, int copies)
      throws IOException {
    boolean mirror = m.isMirrorCopyOn(on.id());
    if (on == loc.mountpath()) {
      if (mirror) {
        return true; // the mountpaths changed: this copy is on the object's HRW mountpath now, and becomes its main
      }
      int want = Math.max(0, Math.min(copies - 1, set.available().size() - 1));
      if (m.copies().size() != want) {
        return true;
      }
      for (String id : m.copies()) {
        if (set.available().stream().noneMatch(mp -> mp.id().equals(id))) {
          return true; // a copy on a lost or leaving mountpath
        }
      }
      return false;
    }
    if (!mirror) {
      return copies > 1 || !m.copies().isEmpty(); // a main copy off its HRW mountpath: restored there with copies
    }
    if (copies <= 1 || !set.isAvailable(on)) {
      return true;
    }
    ObjectMeta main = loc.mountpath().meta().get(loc.key());
    return main == null || !main.sameVersion(m) || !main.copies().contains(on.id());
  }

  /** The version of the object a repair keeps: the newest record, the HRW mountpath's on a tie. */
  public static ObjectMeta newest(List<MirrorCopies.Held> held) {
    ObjectMeta newest = held.get(0).meta(); // HRW mountpath first: it wins a tie
    for (MirrorCopies.Held h : held) {
      if (h.meta().mtime() > newest.mtime()) {
        newest = h.meta();
      }
    }
    return newest;
  }

  private static MirrorCopies.Held on(List<MirrorCopies.Held> held, Mountpath mp) {
    for (MirrorCopies.Held h : held) {
      if (h.mountpath() == mp) {
        return h;
      }
    }
    return null;
  }

  private static boolean intactMirrorOn(List<MirrorCopies.Held> intact, Mountpath mp) {
    MirrorCopies.Held h = on(intact, mp);
    return h != null && h.mirror();
  }

  /** Whether the main record listed exactly {@code recorded} before this repair (else the repair changed it). */
  private static boolean mainRecordListed(List<MirrorCopies.Held> held, ObjectLocation loc, List<String> recorded) {
    MirrorCopies.Held main = on(held, loc.mountpath());
    return main != null && !main.mirror() && main.meta().copies().equals(recorded);
  }
}
