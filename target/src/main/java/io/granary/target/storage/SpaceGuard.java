package io.granary.target.storage;

import java.io.IOException;

/**
 * Decides whether a mountpath may take more bytes, beyond the fixed free-space reserve {@link ObjectStore} always
 * keeps. Installed by the space manager; both methods run on the event loop and must not block.
 */
public interface SpaceGuard {
  /** Admits everything (no capacity policy). */
  SpaceGuard NONE = new SpaceGuard() {
    @Override
    public void admit(Mountpath mp, long bytes) {
    }

    @Override
    public void grow(Mountpath mp, long bytes) {
    }
  };

  /**
   * Called before a work file is created for {@code bytes} (the declared length, 0 when unknown).
   *
   * @throws io.granary.common.error.InsufficientStorageException when there is no room: nothing was created
   */
  void admit(Mountpath mp, long bytes) throws IOException;

  /**
   * Called when a PUT of unknown or understated length grows by {@code bytes} past what it reserved.
   *
   * @throws io.granary.common.error.InsufficientStorageException to abort the PUT (the caller discards it)
   */
  void grow(Mountpath mp, long bytes) throws IOException;
}
