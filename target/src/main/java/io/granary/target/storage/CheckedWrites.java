package io.granary.target.storage;

import java.io.IOException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Serializes the conditional writes of one object on this target whose last step cannot run under the object's
 * lock: a write-through to a remote bucket uploads to the remote store before it commits, and a remote refusal or
 * a precondition that fails must leave the remote untouched. The precondition is checked, the remote written and
 * the copy committed while no other conditional write of the object runs here, so of racing conditional writers
 * through this cluster at most one reaches the remote. Readers and unconditional writers never wait on these locks.
 * Disk executor only (the step blocks).
 */
final class CheckedWrites {
  private static final int STRIPES = 256;
  private final ReentrantLock[] locks = new ReentrantLock[STRIPES];

  CheckedWrites() {
    for (int i = 0; i < STRIPES; i++) {
      locks[i] = new ReentrantLock();
    }
  }

  <T> T run(ObjectStore store, ObjectLocation loc, WriteCondition condition, ObjectStore.CheckedStep<T> step)
      throws IOException {
    ReentrantLock lock = locks[(int) (loc.digest() ^ (loc.digest() >>> 32)) & (STRIPES - 1)];
    lock.lock();
    try {
      condition.check(store.stat(loc.bucket(), loc.name()), loc.bucket().bucket().toString(), loc.name());
      return step.run();
    } finally {
      lock.unlock();
    }
  }
}
