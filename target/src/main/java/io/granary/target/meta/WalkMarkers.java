package io.granary.target.meta;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Where a walk over a mountpath's metadata is (a rebalance's, a resilver's), kept in that mountpath's metadata store
 * under its own column, so a target killed mid-walk resumes after restart instead of starting over: {@code walk}
 * holds the walk's id and the last key whose object was dealt with; {@code done} the id of the last walk of the
 * mountpath that completed. A marker a crash loses only makes the walk look at a few objects again, which is
 * harmless: what was moved is not on the walked mountpath any more, and what moves again is answered "not needed".
 */
public final class WalkMarkers {
  private static final String WALK = "walk";
  private static final String DONE = "done";

  private final String column;

  /** @param column the column family the walks of one kind keep their markers in */
  public WalkMarkers(String column) {
    this.column = column;
  }

  /** The key after which to resume walk {@code id} of {@code store}, or null to start at the beginning. */
  public String resumeAfter(MetaStore store, long id) throws IOException {
    byte[] v = store.column(column).get(WALK);
    if (v == null) {
      return null;
    }
    String s = new String(v, StandardCharsets.UTF_8);
    int nl = s.indexOf('\n');
    return nl > 0 && s.substring(0, nl).equals(Long.toString(id)) ? s.substring(nl + 1) : null;
  }

  /** Records that walk {@code id} dealt with every object up to {@code key}. */
  public void walkedTo(MetaStore store, long id, String key) throws IOException {
    store.column(column).put(WALK, (id + "\n" + key).getBytes(StandardCharsets.UTF_8));
  }

  /** Records that walk {@code id} of this store completed. */
  public void done(MetaStore store, long id) throws IOException {
    store.column(column).put(DONE, Long.toString(id).getBytes(StandardCharsets.UTF_8));
    store.column(column).delete(WALK);
  }

  /** The id of the last walk of this store that completed, or -1. */
  public long lastDone(MetaStore store) throws IOException {
    byte[] v = store.column(column).get(DONE);
    try {
      return v == null ? -1 : Long.parseLong(new String(v, StandardCharsets.UTF_8));
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
