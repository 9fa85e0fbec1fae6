package io.granary.target.resilver;

import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.MountpathMove;
import io.granary.target.storage.MountpathSet;
import io.granary.target.storage.StoredName;
import java.io.IOException;

/**
 * The objects with mirror copies, as the resilver sees them (docs/resilver.md, docs/protection.md): a mirror copy
 * is on a mountpath other than its object's HRW one on purpose, so the resilver never moves or removes it as a
 * stray; objects of mirrored buckets are handed to mirroring instead, which restores a lost main copy and the copy
 * count. Implemented by {@code io.granary.target.mirror}; the resilver only asks.
 */
public interface MirroredObjects {
  /** Without mirroring: every record is the resilver's business. */
  MirroredObjects NONE = new MirroredObjects() {
    @Override
    public Decision decide(StoredName n, Mountpath on, ObjectMeta meta, MountpathSet set) {
      return Decision.NOT_MIRRORED;
    }

    @Override
    public MountpathMove.Result repair(StoredName n) {
      throw new IllegalStateException("no mirroring");
    }
  };

  /** What the resilver does with one record of a walked mountpath. */
  enum Decision {
    /** Not mirrored: moved to its HRW mountpath if misplaced, as always. */
    NOT_MIRRORED,
    /** A mirrored object whose copies are as asked for: left alone. */
    IN_PLACE,
    /** A mirrored object with a lost, misplaced or extra copy: {@link #repair} it. */
    REPAIR
  }

  /** Decides for the record {@code meta} of {@code n} read on {@code on}, under {@code set}. Walk thread. */
  Decision decide(StoredName n, Mountpath on, ObjectMeta meta, MountpathSet set) throws IOException;

  /** Restores the object's main copy and copies; the outcome in the resilver's terms. Move pool. */
  MountpathMove.Result repair(StoredName n) throws IOException;
}
