package io.granary.target.resilver;

import io.granary.common.error.BadRequestException;
import io.granary.common.error.ConflictException;
import io.granary.common.error.MountpathNotFoundException;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.MetadataFiles;
import io.granary.common.mountpath.MountpathsReport;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.MountpathSet;
import io.granary.target.storage.MountpathState;
import io.granary.target.storage.ObjectStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Changes a target's mountpaths at run time and keeps the record of them ({@link VolumeRecord}) on every readable
 * mountpath: attach, detach, disable (by an operator, or by the health check after a failure), and the transitions
 * a resilver makes (an attaching mountpath joins, a detaching one is released). Each change that moves placement
 * starts a new resilver. Changes are serialized (synchronized); they block on disk: never call from an event loop.
 */
public final class MountpathAdmin implements ResilverWalk.Transitions {
  private static final Logger log = LoggerFactory.getLogger(MountpathAdmin.class);

  /** Measures a mountpath for the report: bytes used and capacity. */
  public interface Capacities {
    /** {@code {used, capacity}} in bytes; throws when it cannot be measured. */
    long[] measure(Mountpath mp) throws IOException;
  }

  private final String self;
  private final ObjectStore store;
  private final ClusterMetadataHolder cluster;
  private final Resilver resilver;
  private final HealthChecker health;
  private final Capacities capacities;
  private final Set<Path> flags;          // the --mountpath flags of this run
  private final Set<Path> attached;       // attached at run time (kept across restarts without a flag); guarded
  private final Set<Path> detached;       // flagged ones detached at run time (left out at restarts); guarded
  private final MountpathStartup.Opened opened; // what start found
  private long version;                   // of the persisted record; guarded by this
  private long resilverId;                // the latest resilver; guarded by this
  private boolean resilverDone;           // guarded by this
  private volatile java.util.function.Consumer<String> slicesLost = why -> { };
  private volatile java.util.function.Consumer<Mountpath> slicesBack = mp -> { };

  /**
   * Takes over the mountpaths a target opened at start and connects the health check (failed mountpaths are
   * disabled from now on) and the resilver. {@link #start} records them and starts the resilver they need.
   */
  public MountpathAdmin(String self, ObjectStore store, ClusterMetadataHolder cluster, Resilver resilver,
      HealthChecker health, Capacities capacities, List<Path> flags, MountpathStartup.Opened opened) {
    this.self = self;
    this.store = store;
    this.cluster = cluster;
    this.resilver = resilver;
    this.health = health;
    this.capacities = capacities;
    this.flags = new LinkedHashSet<>(flags.stream().map(p -> p.toAbsolutePath().normalize()).toList());
    this.attached = new LinkedHashSet<>(opened.attached());
    this.detached = new LinkedHashSet<>(opened.detached());
    this.opened = opened;
    VolumeRecord previous = opened.previous();
    this.version = previous == null ? 0 : previous.version();
    this.resilverId = previous == null ? 0 : previous.resilver();
    this.resilverDone = previous == null || previous.resilverDone();
    health.onFailure(this::fail);
    store.setFaultListener(health);
  }

  /**
   * Records the mountpaths and starts a resilver when the set changed since the last run or the last resilver did
   * not finish. Call once the rest of the target is wired (a moved object's commit is handed on to its owner).
   */
  public synchronized void start() throws IOException {
    resilver.start(this);
    boolean first = opened.previous() == null;
    boolean spread = store.mountpaths().size() > 1
        && store.mountpaths().stream().anyMatch(mp -> mp.usage().objectCount() > 0);
    if (opened.changed() || first && spread) { // no record: nobody knows what changed, so look
      changed(first ? "first start with a mountpath record" : "the mountpaths changed since the last run");
      return;
    }
    persist();
    if (!first && !opened.previous().resilverDone()) {
      resilver.run(resilverId, "resuming after a restart");
    }
  }

  /**
   * Installs what is told when a mountpath leaves service with what it held that no resilver moves (erasure-coding
   * slices): disabled (by an operator or a failed health check) or detached. Must not block.
   */
  public void onSlicesLost(java.util.function.Consumer<String> listener) {
    this.slicesLost = listener;
  }

  /**
   * Installs what is told when a mountpath returns to service (attached again, or enabled) with what it held before,
   * erasure-coding slices among it, some of which may have been replaced meanwhile. Must not block.
   */
  public void onSlicesBack(java.util.function.Consumer<Mountpath> listener) {
    this.slicesBack = listener;
  }

  /** Attaches the directory {@code path} as a mountpath (or enables a disabled one) and starts a resilver. */
  public synchronized MountpathsReport attach(String path) throws IOException {
    Path p = parse(path);
    Path parent = p.getParent();
    if (parent == null || !Files.isDirectory(parent)) {
      throw BadRequestException.invalidArgument("the parent directory of " + p + " does not exist");
    }
    if (Files.exists(p) && !Files.isDirectory(p)) {
      throw BadRequestException.invalidArgument(p + " is not a directory");
    }
    MountpathSet set = store.mountpathSet();
    MountpathSet.Entry known = set.entry(p).orElse(null);
    if (known != null && known.state() != MountpathState.DISABLED) {
      throw new ConflictException(ConflictException.MOUNTPATH_IN_USE, p + " is a mountpath of target " + self
          + " already (" + known.state().wireName() + ")");
    }
    for (MountpathSet.Entry e : set.entries()) {
      if (e.state().readable() && (p.startsWith(e.path()) || e.path().startsWith(p))) {
        throw new ConflictException(ConflictException.MOUNTPATH_IN_USE, p + " and mountpath " + e.path()
            + " of target " + self + " would nest");
      }
    }
    checkOwner(p);
    Mountpath mp;
    try {
      mp = Mountpath.open(p);
    } catch (IOException e) {
      if (String.valueOf(e.getMessage()).contains("in use by another target process")) {
        throw new ConflictException(ConflictException.MOUNTPATH_IN_USE, e.getMessage());
      }
      throw e;
    }
    try {
      prepareNew(mp);
      MountpathState state = mp.meta().isEmpty() ? MountpathState.AVAILABLE : MountpathState.ATTACHING;
      store.updateMountpaths(s -> s.with(new MountpathSet.Entry(p, state, mp, null)));
    } catch (IOException | RuntimeException e) {
      mp.close();
      throw e;
    }
    if (!flags.contains(p)) {
      attached.add(p);
    }
    detached.remove(p);
    log.info("node={} mountpath={} attached ({})", self, p, store.mountpathSet().entry(p).orElseThrow().state()
        .wireName());
    changed("attach " + p);
    slicesBack.accept(mp);
    return report();
  }

  /** A directory holding another target's node id is that target's mountpath. */
  private void checkOwner(Path p) throws IOException {
    Path idFile = p.resolve(".granary").resolve("node-id");
    if (Files.exists(idFile)) {
      String owner = Files.readString(idFile, StandardCharsets.UTF_8).trim();
      if (!owner.equals(self)) {
        throw new ConflictException(ConflictException.MOUNTPATH_IN_USE, p + " is a mountpath of target '" + owner
            + "', not of " + self);
      }
    }
  }

  /** Writes this target's id and the cluster metadata it holds to a newly attached mountpath. */
  private void prepareNew(Mountpath mp) throws IOException {
    Path idFile = mp.systemDir().resolve("node-id");
    if (!Files.exists(idFile)) {
      MetadataFiles.writeAtomically(idFile, (self + "\n").getBytes(StandardCharsets.UTF_8));
    }
    var md = cluster.snapshot().map(ClusterMetadataHolder.Snapshot::metadata).orElse(null);
    if (md != null) {
      new MetadataFiles(List.of(mp.systemDir())).write(md);
    }
  }

  /**
   * Detaches a mountpath: out of placement at once, still read, its objects move off, then it is released. A
   * disabled one is forgotten (its objects cannot be read to move them); an attaching one is refused until checked.
   */
  public synchronized MountpathsReport detach(String path) throws IOException {
    MountpathSet.Entry e = require(path);
    switch (e.state()) {
      case DETACHING -> {
        return report();
      }
      case DISABLED -> {
        store.updateMountpaths(s -> s.without(e.path()));
        forget(e.path());
        log.info("node={} mountpath={} (disabled) forgotten", self, e.path());
        persist();
        return report();
      }
      case AVAILABLE -> requireAnotherAvailable(e);
      case ATTACHING -> throw new ConflictException(ConflictException.MOUNTPATH_IN_USE, e.path() + " of target "
          + self + " is attaching: its copies are being checked (moved off unchecked, a stale one would overwrite "
          + "a newer version); detach it once it is available, or disable it");
    }
    store.updateMountpaths(s -> s.with(e.withState(MountpathState.DETACHING, null)));
    log.info("node={} mountpath={} detaching: its objects move to the other mountpaths, then it is released", self,
        e.path());
    changed("detach " + e.path());
    return report();
  }

  /** Disables a mountpath by an operator's request: out of use at once, not read, closed. */
  public synchronized MountpathsReport disable(String path) throws IOException {
    MountpathSet.Entry e = require(path);
    if (e.state() == MountpathState.DISABLED) {
      return report();
    }
    if (e.state() == MountpathState.AVAILABLE) {
      requireAnotherAvailable(e);
    }
    disableNow(e, "disabled by an operator");
    log.warn("node={} mountpath={} disabled by an operator: its objects are not read until it is attached again",
        self, e.path());
    return report();
  }

  /** Disables a mountpath that failed its health check; false when it is no longer read anyway. */
  synchronized boolean fail(Mountpath mp, String reason) {
    MountpathSet.Entry e = store.mountpathSet().entry(mp).orElse(null);
    if (e == null || !e.state().readable()) {
      return false;
    }
    try {
      disableNow(e, "failed: " + reason);
      return true;
    } catch (IOException | RuntimeException ex) {
      log.error("node={} mountpath={} could not be disabled after failing its health check", self, mp, ex);
      return false;
    }
  }

  private void disableNow(MountpathSet.Entry e, String reason) throws IOException {
    Mountpath mp = e.mountpath();
    store.updateMountpaths(s -> s.with(e.withState(MountpathState.DISABLED, reason)));
    releaseLater(mp);
    slicesLost.accept("mountpath " + e.path() + " disabled: " + reason);
    changed("disable " + e.path() + ": " + reason);
  }

  private MountpathSet.Entry require(String path) {
    Path p = parse(path);
    return store.mountpathSet().entry(p).orElseThrow(() -> new MountpathNotFoundException(self, p.toString()));
  }

  private void requireAnotherAvailable(MountpathSet.Entry e) {
    if (store.mountpathSet().available().size() <= 1) {
      throw new ConflictException(ConflictException.LAST_MOUNTPATH, e.path() + " is the last available mountpath "
          + "of target " + self + "; attach another one first");
    }
  }

  private static Path parse(String path) {
    if (path == null || path.isBlank()) {
      throw BadRequestException.invalidArgument("a mountpath is an absolute directory path, got none");
    }
    Path p;
    try {
      p = Path.of(path);
    } catch (RuntimeException e) {
      throw BadRequestException.invalidArgument("'" + path + "' is not a path: " + e.getMessage());
    }
    if (!p.isAbsolute()) {
      throw BadRequestException.invalidArgument("a mountpath is an absolute directory path, got '" + path + "'");
    }
    return p.normalize();
  }

  /** Placement changed: a new resilver, recorded before it starts. */
  private void changed(String cause) throws IOException {
    resilverId++;
    resilverDone = false;
    persist();
    resilver.run(resilverId, cause);
  }

  @Override
  public synchronized void joined(Mountpath mp) throws IOException {
    MountpathSet.Entry e = store.mountpathSet().entry(mp).orElse(null);
    if (e != null && e.state() == MountpathState.ATTACHING) {
      store.updateMountpaths(s -> s.with(e.withState(MountpathState.AVAILABLE, null)));
      persist();
    }
  }

  @Override
  public synchronized void drained(Mountpath mp) throws IOException {
    MountpathSet.Entry e = store.mountpathSet().entry(mp).orElse(null);
    if (e != null && e.state() == MountpathState.DETACHING) {
      store.updateMountpaths(s -> s.without(e.path()));
      forget(e.path());
      persist();
      releaseLater(mp);
      log.info("node={} mountpath={} detached and released: its disk may be removed", self, e.path());
      slicesLost.accept("mountpath " + e.path() + " detached");
    }
  }

  @Override
  public synchronized void finished(long id, boolean complete) {
    if (id == resilverId && complete && !resilverDone) {
      resilverDone = true;
      try {
        persist();
      } catch (IOException e) {
        log.warn("node={} recording the end of resilver {} failed; it runs again at the next start: {}", self, id,
            e.toString());
      }
    }
  }

  /** A mountpath left for good: if a flag still names it, the record keeps it out of the next start. */
  private void forget(Path p) {
    attached.remove(p);
    if (flags.contains(p)) {
      detached.add(p);
    }
  }

  /** Closes a mountpath that is no longer read, off this thread: it waits for calls still using it. */
  private void releaseLater(Mountpath mp) {
    Thread t = new Thread(() -> {
      try {
        store.release(mp);
      } catch (IOException | RuntimeException e) {
        log.warn("node={} mountpath={} closing it failed: {}", self, mp, e.toString());
      }
    }, "release-" + self);
    t.setDaemon(true);
    t.start();
  }

  /** Writes the record to every readable mountpath; a copy that cannot be written gets its mountpath checked. */
  private void persist() throws IOException {
    version++;
    List<VolumeRecord.Entry> entries = new ArrayList<>();
    MountpathSet set = store.mountpathSet();
    for (MountpathSet.Entry e : set.entries()) {
      entries.add(new VolumeRecord.Entry(e.path().toString(), e.state().wireName(), attached.contains(e.path()),
          e.reason()));
    }
    for (Path p : detached) {
      entries.add(new VolumeRecord.Entry(p.toString(), VolumeRecord.DETACHED, false, null));
    }
    VolumeRecord r = new VolumeRecord(version, resilverId, resilverDone, entries);
    List<Path> failed = VolumeFiles.write(r, set.readable().stream().map(Mountpath::systemDir).toList());
    for (Mountpath mp : set.readable()) {
      if (failed.contains(mp.systemDir())) {
        health.ioError(mp, new IOException("writing " + VolumeFiles.FILE + " failed"));
      }
    }
  }

  /** Each mountpath with its state and what it holds, and the latest resilver. */
  public synchronized MountpathsReport report() {
    List<MountpathsReport.Mountpath> out = new ArrayList<>();
    for (MountpathSet.Entry e : store.mountpathSet().entries()) {
      Mountpath mp = e.mountpath();
      Long used = null;
      Long capacity = null;
      if (mp != null) {
        try {
          long[] c = capacities.measure(mp);
          used = c[0];
          capacity = c[1];
        } catch (IOException | RuntimeException ex) {
          // a failing disk cannot be measured: the report leaves the numbers out
        }
      }
      out.add(new MountpathsReport.Mountpath(e.path().toString(), e.state().wireName(),
          mp == null ? null : mp.usage().objectCount(), mp == null ? null : mp.usage().objectBytes(), used, capacity,
          attached.contains(e.path()), e.reason()));
    }
    return new MountpathsReport(self, out, resilver.progress(resilverId), health.failures());
  }
}
