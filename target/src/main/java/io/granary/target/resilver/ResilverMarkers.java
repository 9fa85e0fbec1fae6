package io.granary.target.resilver;

import io.granary.target.meta.MetaStore;
import io.granary.target.storage.Mountpath;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Where a resilver's walk of a mountpath is, kept in that mountpath's metadata (column {@code resilver}), so a target
 * killed mid-resilver resumes after restart instead of starting over: {@code walk} holds the resilver id and the
 * last key whose object was dealt with; {@code done} the last resilver whose walk of the mountpath completed.
 * Written synced but small; a marker a crash loses only makes the walk look at a few objects again, which is
 * harmless (an object already moved is not on the walked mountpath any more).
 */
final class ResilverMarkers {
  private static final String COLUMN = "resilver";
  private static final String WALK = "walk";
  private static final String DONE = "done";

  private ResilverMarkers() {}

  /** The key after which to resume resilver {@code id}'s walk of {@code mp}, or null to start at the beginning. */
  static String resumeAfter(Mountpath mp, long id) throws IOException {
    byte[] v = column(mp).get(WALK);
    if (v == null) {
      return null;
    }
    String s = new String(v, StandardCharsets.UTF_8);
    int nl = s.indexOf('\n');
    return nl > 0 && s.substring(0, nl).equals(Long.toString(id)) ? s.substring(nl + 1) : null;
  }

  static void walkedTo(Mountpath mp, long id, String key) throws IOException {
    column(mp).put(WALK, (id + "\n" + key).getBytes(StandardCharsets.UTF_8));
  }

  static void done(Mountpath mp, long id) throws IOException {
    column(mp).put(DONE, Long.toString(id).getBytes(StandardCharsets.UTF_8));
    column(mp).delete(WALK);
  }

  /** Whether the walk of {@code mp} for resilver {@code id} completed. */
  static boolean isDone(Mountpath mp, long id) throws IOException {
    byte[] v = column(mp).get(DONE);
    try {
      return v != null && Long.parseLong(new String(v, StandardCharsets.UTF_8)) == id;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static MetaStore.Column column(Mountpath mp) {
    return mp.meta().column(COLUMN);
  }
}
