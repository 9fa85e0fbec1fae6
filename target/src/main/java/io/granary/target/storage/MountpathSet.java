package io.granary.target.storage;

import io.granary.clustermap.hrw.Rendezvous;
import io.granary.common.error.ServiceUnavailableException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The mountpaths of one target at one moment, immutable: every mountpath the target knows with its state, which of
 * them HRW places objects on (the available ones) and which are read (every state but disabled). A change makes a
 * new set ({@link ObjectStore#updateMountpaths}); an operation takes the current set once and works with it. Of the
 * readable ones, lookups and listings use only the served ones: an attaching mountpath is written to (removals,
 * older copies dropped by a commit) but not served from until its copies were checked.
 *
 * <p>Placement is HRW over the available mountpaths' ids (AIStore {@code fs/hrw.go}), so adding a mountpath moves
 * about 1/(n+1) of the objects to it and removing one moves only the objects it held.
 */
public final class MountpathSet {
  /**
   * One mountpath the target knows.
   *
   * @param path its directory, absolute and normalized
   * @param state where it stands
   * @param mountpath the open mountpath; null when it is not open (disabled at start, or closed since)
   * @param reason why it is disabled (a failed health check, an operator), or null
   */
  public record Entry(Path path, MountpathState state, Mountpath mountpath, String reason) {
    public Entry {
      if (state != MountpathState.DISABLED && mountpath == null) {
        throw new IllegalArgumentException("a " + state.wireName() + " mountpath must be open: " + path);
      }
    }

    /** This mountpath in state {@code s}; a disabled one keeps no open mountpath (the store closes it). */
    public Entry withState(MountpathState s, String why) {
      return new Entry(path, s, s == MountpathState.DISABLED ? null : mountpath, why);
    }
  }

  private final List<Entry> entries;
  private final List<Mountpath> available;
  private final List<Mountpath> readable;
  private final List<Mountpath> served;
  private final Rendezvous<Mountpath> hrw;

  private MountpathSet(List<Entry> entries) {
    this.entries = List.copyOf(entries);
    List<Mountpath> avail = new ArrayList<>();
    List<Mountpath> read = new ArrayList<>();
    List<Mountpath> serve = new ArrayList<>();
    for (Entry e : this.entries) {
      if (e.state() == MountpathState.AVAILABLE) {
        avail.add(e.mountpath());
      }
      if (e.state().readable()) {
        read.add(e.mountpath());
      }
      if (e.state().served()) {
        serve.add(e.mountpath());
      }
    }
    this.available = List.copyOf(avail);
    this.readable = List.copyOf(read);
    this.served = List.copyOf(serve);
    this.hrw = Rendezvous.unweighted(this.available, Mountpath::id);
  }

  /** A set of the given entries, in that order (one per path). */
  public static MountpathSet of(List<Entry> entries) {
    if (entries.stream().map(Entry::path).distinct().count() != entries.size()) {
      throw new IllegalArgumentException("mountpaths must be distinct: " + entries);
    }
    return new MountpathSet(entries);
  }

  /** Every mountpath open and available, as a target starts without a record of earlier runs. */
  public static MountpathSet allAvailable(List<Mountpath> mountpaths) {
    return of(mountpaths.stream().map(mp -> new Entry(mp.root(), MountpathState.AVAILABLE, mp, null)).toList());
  }

  public List<Entry> entries() {
    return entries;
  }

  public Optional<Entry> entry(Path path) {
    return entries.stream().filter(e -> e.path().equals(path)).findFirst();
  }

  /** The entry of an open mountpath, or empty when it is not in this set. */
  public Optional<Entry> entry(Mountpath mp) {
    return entries.stream().filter(e -> e.mountpath() == mp).findFirst();
  }

  /** Mountpaths in HRW placement. */
  public List<Mountpath> available() {
    return available;
  }

  /** Mountpaths reads look on: available, attaching and detaching. */
  public List<Mountpath> readable() {
    return readable;
  }

  /** Mountpaths lookups and listings look on: available and detaching (not attaching ones, unchecked yet). */
  public List<Mountpath> served() {
    return served;
  }

  /** Whether lookups look on {@code mp}. */
  public boolean isServed(Mountpath mp) {
    for (Mountpath r : served) {
      if (r == mp) {
        return true;
      }
    }
    return false;
  }

  /** Whether reads look on {@code mp} (this very open mountpath, not another one opened on the same path). */
  public boolean isReadable(Mountpath mp) {
    for (Mountpath r : readable) {
      if (r == mp) {
        return true;
      }
    }
    return false;
  }

  /** Whether HRW places objects on {@code mp}. */
  public boolean isAvailable(Mountpath mp) {
    for (Mountpath a : available) {
      if (a == mp) {
        return true;
      }
    }
    return false;
  }

  /**
   * Where an object's mirror copies go (docs/protection.md): the available mountpaths after its main one in HRW
   * order for its placement digest, at most {@code copies - 1} of them (fewer when fewer are available). The order
   * is the object's own, so every target and every restart places the copies alike, and losing one mountpath moves
   * only the copies that were on it.
   */
  public List<Mountpath> mirrorPlaces(long digest, int copies) {
    if (copies <= 1) {
      return List.of();
    }
    List<Mountpath> ranked = hrw.ranked(digest, copies);
    return ranked.isEmpty() ? List.of() : ranked.subList(1, ranked.size());
  }

  /** The HRW mountpath of a placement digest; 503 when no mountpath is available. */
  public Mountpath pick(long digest) {
    Mountpath mp = hrw.pick(digest);
    if (mp == null) {
      throw new ServiceUnavailableException(ServiceUnavailableException.MOUNTPATH_UNAVAILABLE,
          "this target has no available mountpath", 5);
    }
    return mp;
  }

  /** This set with {@code e} in place of the entry of its path, or added at the end. */
  public MountpathSet with(Entry e) {
    List<Entry> next = new ArrayList<>(entries.size() + 1);
    boolean replaced = false;
    for (Entry old : entries) {
      if (old.path().equals(e.path())) {
        next.add(e);
        replaced = true;
      } else {
        next.add(old);
      }
    }
    if (!replaced) {
      next.add(e);
    }
    return new MountpathSet(next);
  }

  /** This set without the entry of {@code path}. */
  public MountpathSet without(Path path) {
    return new MountpathSet(entries.stream().filter(e -> !e.path().equals(path)).toList());
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("[");
    for (Entry e : entries) {
      sb.append(sb.length() > 1 ? ", " : "").append(e.path()).append('=').append(e.state().wireName());
    }
    return sb.append(']').toString();
  }
}
