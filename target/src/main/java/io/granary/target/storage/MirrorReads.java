package io.granary.target.storage;

import io.granary.target.meta.ObjectMeta;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardOpenOption;

/**
 * Opens an object that has mirror copies (its record lists some), falling back to a copy when the file found is
 * missing or unreadable. Runs on the event loop under the object's read lock, like every open.
 *
 * <p>The fast path stays one metadata point read and one open on the HRW mountpath, plus one fstat for mirrored
 * objects only: a file whose size is not the recorded one (truncated, or replaced by something else) is taken for
 * unreadable before any header is sent, when a copy can still serve the whole object. Only when that fails are the
 * other mountpaths read (one point read each), and the listener is told so the lost copy is restored.
 */
final class MirrorReads {
  private final ObjectStore store;
  private volatile FallbackListener listener = FallbackListener.NONE;

  MirrorReads(ObjectStore store) {
    this.store = store;
  }

  void setListener(FallbackListener l) {
    this.listener = l == null ? FallbackListener.NONE : l;
  }

  /**
   * Opens copy {@code c} of the object at {@code loc}, or another mirror copy of the same version when it cannot be
   * read. Caller holds the read lock. 503 when no copy can be read.
   */
  FileChannel open(Copies.Copy c, ObjectLocation loc) throws IOException {
    try {
      FileChannel ch = openChecked(c.location(), c.meta());
      if (c.location().mountpath() != loc.mountpath()) {
        listener.servedFromCopy(loc); // the HRW mountpath has no record: a lost disk, or a main copy not restored yet
      }
      return ch;
    } catch (IOException e) {
      store.log().warn("node={} mountpath={} bucket={} object={}: main copy unreadable ({}), reading a mirror copy",
          store.nodeId(), c.location().mountpath(), loc.bucket().bucket(), loc.name(), e.toString());
      if (!(e instanceof NoSuchFileException)) {
        store.copies().report(c.location().mountpath(), e); // an I/O error: the health check decides on the disk
      }
      FileChannel ch = openOtherCopy(c, loc);
      if (ch == null) {
        throw store.copies().unavailable(c.location().mountpath(), e);
      }
      listener.servedFromCopy(loc);
      return ch;
    }
  }

  /** Another served mountpath's mirror copy of {@code c}'s version, opened; null when none can be read. */
  private FileChannel openOtherCopy(Copies.Copy c, ObjectLocation loc) throws IOException {
    for (Mountpath mp : store.mountpathSet().served()) {
      if (mp == c.location().mountpath()) {
        continue;
      }
      ObjectMeta m = store.copies().metaOn(mp, loc.key());
      if (m == null || !m.isMirrorCopyOn(mp.id()) || !m.sameVersion(c.meta())) {
        continue;
      }
      try {
        return openChecked(loc.on(mp), m);
      } catch (IOException e) {
        store.log().warn("node={} mountpath={} bucket={} object={}: mirror copy unreadable too: {}", store.nodeId(),
            mp, loc.bucket().bucket(), loc.name(), e.toString());
      }
    }
    return null;
  }

  /** Opens a copy's file and checks its size against its record (one fstat). */
  private static FileChannel openChecked(ObjectLocation at, ObjectMeta meta) throws IOException {
    FileChannel ch = FileChannel.open(at.file(), StandardOpenOption.READ);
    long size;
    try {
      size = ch.size();
    } catch (IOException e) {
      ch.close();
      throw e;
    }
    if (size != meta.size()) {
      ch.close();
      throw new IOException("file " + at.file() + " is " + size + " bytes, its record says " + meta.size());
    }
    return ch;
  }
}
