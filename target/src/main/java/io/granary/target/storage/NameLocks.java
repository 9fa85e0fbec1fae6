package io.granary.target.storage;

import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Striped read/write locks keyed by an object's placement digest. A GET holds the read lock only while it reads
 * metadata and opens the file; a commit holds the write lock only while it renames the file and publishes the
 * metadata. So a reader always pairs metadata with the file it describes, and neither waits on disk syncs.
 */
final class NameLocks {
  private static final int STRIPES = 1024;
  private final ReentrantReadWriteLock[] locks = new ReentrantReadWriteLock[STRIPES];

  NameLocks() {
    for (int i = 0; i < STRIPES; i++) {
      locks[i] = new ReentrantReadWriteLock();
    }
  }

  ReentrantReadWriteLock forDigest(long digest) {
    return locks[stripe(digest)];
  }

  /** The stripe a digest's lock is: callers that take several locks take them in stripe order. */
  int stripe(long digest) {
    return (int) (digest ^ (digest >>> 32)) & (STRIPES - 1);
  }
}
