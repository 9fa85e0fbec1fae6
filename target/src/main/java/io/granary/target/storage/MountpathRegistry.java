package io.granary.target.storage;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The object store's current {@link MountpathSet} and the mountpaths it holds open. A mountpath that leaves the set
 * stays open until {@link #release} (a detached one, once its objects moved off) or the store closes: a thread that
 * took the set a moment before may still be using it, and its metadata store refuses calls once closed.
 *
 * <p>Changes are serialized; readers take {@link #current} without a lock (a volatile read).
 */
final class MountpathRegistry {
  private static final Logger log = LoggerFactory.getLogger(MountpathRegistry.class);

  /** Prepares a mountpath before reads can see it (crash recovery, usage counting). */
  interface Preparer {
    void prepare(Mountpath mp) throws IOException;

    /** Once every readable mountpath of {@code set} is prepared: what recovery does across mountpaths. */
    void prepared(MountpathSet set) throws IOException;
  }

  private final String nodeId;
  private final Preparer preparer;
  private final Set<Mountpath> open = Collections.newSetFromMap(new IdentityHashMap<>()); // guarded by this
  private final List<BiConsumer<MountpathSet, MountpathSet>> listeners = new CopyOnWriteArrayList<>();
  private volatile MountpathSet current;

  MountpathRegistry(String nodeId, Preparer preparer) {
    this.nodeId = nodeId;
    this.preparer = preparer;
  }

  MountpathSet current() {
    return current;
  }

  /** Installs the first set, preparing every readable mountpath in it. */
  synchronized void init(MountpathSet first) throws IOException {
    List<Mountpath> readable = new ArrayList<>();
    for (MountpathSet.Entry e : first.entries()) {
      if (e.mountpath() != null) {
        open.add(e.mountpath());
        if (e.state().readable()) {
          readable.add(e.mountpath());
        }
      }
    }
    prepareAll(readable);
    preparer.prepared(first);
    current = first;
  }

  /**
   * Prepares the mountpaths at once, one thread each: each is its own disk, and preparing one reads its whole
   * metadata (a target holding millions of records spent seconds per mountpath, one after another).
   */
  private void prepareAll(List<Mountpath> mountpaths) throws IOException {
    if (mountpaths.size() == 1) {
      preparer.prepare(mountpaths.get(0));
      return;
    }
    List<Thread> threads = new ArrayList<>();
    IOException[] failed = new IOException[mountpaths.size()];
    RuntimeException[] broke = new RuntimeException[mountpaths.size()];
    for (int i = 0; i < mountpaths.size(); i++) {
      int k = i;
      Thread t = new Thread(() -> {
        try {
          preparer.prepare(mountpaths.get(k));
        } catch (IOException e) {
          failed[k] = e;
        } catch (RuntimeException e) {
          broke[k] = e;
        }
      }, "prepare-" + nodeId + "-" + i);
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new java.io.InterruptedIOException("interrupted while preparing mountpaths");
      }
    }
    for (int i = 0; i < mountpaths.size(); i++) {
      if (failed[i] != null) {
        throw failed[i];
      }
      if (broke[i] != null) {
        throw broke[i];
      }
    }
  }

  /**
   * Applies {@code change} to the current set and publishes the result, then tells the listeners. A mountpath that
   * becomes readable and was not open here before is prepared first; if that fails nothing changes.
   *
   * @return the new set
   */
  synchronized MountpathSet update(UnaryOperator<MountpathSet> change) throws IOException {
    MountpathSet old = current;
    MountpathSet next = change.apply(old);
    boolean prepared = false;
    for (Mountpath mp : next.readable()) {
      if (!open.contains(mp)) {
        preparer.prepare(mp);
        open.add(mp);
        prepared = true;
      }
    }
    if (prepared) {
      preparer.prepared(next);
    }
    current = next;
    log.info("node={} mountpaths {}", nodeId, next);
    for (BiConsumer<MountpathSet, MountpathSet> l : listeners) {
      try {
        l.accept(old, next);
      } catch (RuntimeException e) {
        log.error("node={} mountpath listener failed", nodeId, e);
      }
    }
    return next;
  }

  /** Called with (old, new) after every change. */
  void onChange(BiConsumer<MountpathSet, MountpathSet> listener) {
    listeners.add(listener);
  }

  /**
   * Closes a mountpath that is no longer read (waiting for calls still using its metadata). Refused while the current
   * set reads it.
   */
  void release(Mountpath mp) throws IOException {
    synchronized (this) {
      if (current.isReadable(mp)) {
        throw new IllegalStateException("mountpath " + mp + " is still read; it cannot be released");
      }
      if (!open.remove(mp)) {
        return;
      }
    }
    mp.close(); // outside the lock: it waits for calls in progress
  }

  /** Closes every mountpath still open (the store is closing). */
  IOException closeAll() {
    List<Mountpath> all;
    synchronized (this) {
      all = new ArrayList<>(open);
      open.clear();
    }
    IOException first = null;
    for (Mountpath mp : all) {
      try {
        mp.close();
      } catch (IOException e) {
        first = first == null ? e : first;
      }
    }
    return first;
  }
}
