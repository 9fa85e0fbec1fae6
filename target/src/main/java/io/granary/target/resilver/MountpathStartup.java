package io.granary.target.resilver;

import io.granary.target.storage.Mountpath;
import io.granary.target.storage.MountpathSet;
import io.granary.target.storage.MountpathState;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens a target's mountpaths at start, from its {@code --mountpath} flags and the {@link VolumeRecord} of its last
 * run:
 *
 * <ul>
 *   <li>a flag the record lists keeps its state; a disabled one stays disabled (not opened) until attached again;</li>
 *   <li>a new flag is opened; if it holds objects from an earlier life it joins as attaching (its copies are checked
 *       against the others before it takes objects), else as available;</li>
 *   <li>a mountpath attached at run time stays though no flag names it (detach it to remove it);</li>
 *   <li>a mountpath given last run and not now is dropped: its objects are no longer served;</li>
 *   <li>a mountpath an operator detached at run time stays out though its flag is still given (a pod restarts
 *       with the same flags; its disk may be gone);</li>
 *   <li>a mountpath the record lists whose directory is missing or cannot be opened is disabled, not re-created
 *       empty (a disk that did not come back), and the target starts with the others.</li>
 * </ul>
 *
 * When the set differs from the record, or the record's resilver did not finish, a resilver runs after start
 * ({@link MountpathAdmin#start}).
 */
public final class MountpathStartup {
  private static final Logger log = LoggerFactory.getLogger(MountpathStartup.class);

  private MountpathStartup() {}

  /**
   * What start found.
   *
   * @param set the mountpaths, opened as planned
   * @param previous the record of the last run, or null
   * @param attached the paths attached at run time (in an earlier run)
   * @param detached the paths detached at run time whose {@code --mountpath} is still given: left out
   * @param changed whether the set differs from the record (a resilver for a new change must run)
   * @param failed mountpaths that could not be opened, now disabled
   */
  public record Opened(MountpathSet set, VolumeRecord previous, Set<Path> attached, Set<Path> detached,
      boolean changed, int failed) {
  }

  /** One mountpath as planned from the flags and the record, before it is opened. */
  record Planned(Path path, MountpathState state, boolean attached, boolean isNew, String reason) {
  }

  /**
   * The plan for {@code flags} given the last run's {@code record} (null: none).
   *
   * @param open the mountpaths to open (or to keep disabled)
   * @param detached flagged paths an operator detached at run time: left out until attached again
   * @param removed whether a mountpath the record lists is neither given nor kept (its objects are not served)
   */
  record Plan(List<Planned> open, Set<Path> detached, boolean removed) {
  }

  static Plan plan(List<Path> flags, VolumeRecord record, String node) {
    List<Planned> out = new ArrayList<>();
    Set<Path> detached = new LinkedHashSet<>();
    Set<String> given = new HashSet<>();
    boolean removed = false;
    for (Path f : flags) {
      Path p = f.toAbsolutePath().normalize();
      given.add(p.toString());
      VolumeRecord.Entry e = record == null ? null : record.entry(p.toString()).orElse(null);
      if (e == null) {
        out.add(new Planned(p, MountpathState.AVAILABLE, false, record != null, null));
      } else if (e.state().equals(VolumeRecord.DETACHED)) {
        detached.add(p);
        log.warn("node={} mountpath={} was detached at run time and is still given with --mountpath: it stays out; "
            + "attach it again to use it, or drop the flag", node, p);
      } else {
        out.add(new Planned(p, MountpathState.parse(e.state()), false, false, e.reason()));
      }
    }
    if (record != null) {
      for (VolumeRecord.Entry e : record.mountpaths()) {
        if (given.contains(e.path()) || e.state().equals(VolumeRecord.DETACHED)) {
          continue; // a detached one no flag names any more is simply forgotten
        }
        if (e.attached()) {
          out.add(new Planned(Path.of(e.path()), MountpathState.parse(e.state()), true, false, e.reason()));
        } else {
          removed = true;
          log.warn("node={} mountpath={} was given last run and is not now: the objects on it are no longer served",
              node, e.path());
        }
      }
    }
    return new Plan(out, detached, removed);
  }

  /** Reads the record from the flagged mountpaths, plans, and opens. */
  public static Opened open(List<Path> flags, String node) throws IOException {
    VolumeRecord record = VolumeFiles.readNewestFrom(flags.stream().map(p -> p.toAbsolutePath().normalize())
        .toList()).orElse(null);
    Plan plan = plan(flags, record, node);
    List<MountpathSet.Entry> entries = new ArrayList<>();
    Set<Path> attached = new LinkedHashSet<>();
    boolean changed = plan.removed();
    int failed = 0;
    try {
      for (Planned p : plan.open()) {
        changed |= p.isNew();
        if (p.attached()) {
          attached.add(p.path());
        }
        if (p.state() == MountpathState.DISABLED) {
          log.warn("node={} mountpath={} stays disabled ({}); attach it to use it again", node, p.path(), p.reason());
          entries.add(new MountpathSet.Entry(p.path(), MountpathState.DISABLED, null, p.reason()));
          continue;
        }
        Mountpath mp;
        try {
          mp = Mountpath.open(p.path(), p.isNew() || record == null);
        } catch (IOException e) {
          log.error("node={} mountpath={} cannot be opened and is disabled; the target starts without it: {}", node,
              p.path(), e.toString());
          entries.add(new MountpathSet.Entry(p.path(), MountpathState.DISABLED, null, "failed at start: " + e));
          failed++;
          changed = true;
          continue;
        }
        MountpathState state = p.state();
        if (p.isNew() && !mp.meta().isEmpty()) {
          state = MountpathState.ATTACHING; // objects from an earlier life: checked against the others first
          log.info("node={} mountpath={} is new to this target and holds objects: it joins once they are checked",
              node, p.path());
        }
        entries.add(new MountpathSet.Entry(p.path(), state, mp, null));
      }
      entries = promoteIfNoneAvailable(entries);
      MountpathSet set = MountpathSet.of(entries);
      if (set.available().isEmpty()) {
        throw new IOException("no usable mountpath among " + plan.open().stream().map(Planned::path).toList());
      }
      return new Opened(set, record, attached, plan.detached(), changed, failed);
    } catch (IOException | RuntimeException e) {
      for (MountpathSet.Entry en : entries) {
        if (en.mountpath() != null) {
          en.mountpath().close();
        }
      }
      throw e;
    }
  }

  /** With no available mountpath, attaching ones are all there is: they become available as they are. */
  private static List<MountpathSet.Entry> promoteIfNoneAvailable(List<MountpathSet.Entry> entries) {
    if (entries.stream().anyMatch(e -> e.state() == MountpathState.AVAILABLE)) {
      return entries;
    }
    return entries.stream().map(e -> e.state() == MountpathState.ATTACHING
        ? e.withState(MountpathState.AVAILABLE, null) : e).toList();
  }
}
