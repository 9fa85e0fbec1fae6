package io.granary.target.storage;

/**
 * Told of every read and removal of an object, so access times can be kept apart from the immutable object record.
 * Calls come from the event loop (reads) or the disk executor (removals), under the object's lock: they must not
 * block or take long.
 */
public interface AccessRecorder {
  /** Records nothing. */
  AccessRecorder NONE = new AccessRecorder() {
    @Override
    public void accessed(ObjectLocation loc) {
    }

    @Override
    public void removed(ObjectLocation loc) {
    }
  };

  /** The object at {@code loc} was opened for reading. */
  void accessed(ObjectLocation loc);

  /** The object at {@code loc} was deleted or evicted: forget any access not yet persisted. */
  void removed(ObjectLocation loc);

  /**
   * The object moved from {@code from} to {@code to} (another mountpath): an access not yet persisted moves with it.
   * The recorded access time is the mover's to carry.
   */
  default void moved(ObjectLocation from, ObjectLocation to) {
  }
}
