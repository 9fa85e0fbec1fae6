package io.granary.target.coldget;

import io.granary.backend.Backend;
import io.granary.backend.BackendException;
import io.granary.backend.RemoteChecksum;
import io.granary.backend.RemoteObject;
import io.granary.common.exec.BoundedExecutor;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Asks the remote, alongside a fetch, for the whole-object checksum it keeps ({@link Backend#fullChecksum}) when the
 * fetch's first answer carried nothing to verify the content against (an S3 multipart upload's ETag is no MD5), or
 * nothing as cheap as it may be ({@link ContentVerifier#mayBeSparedMd5}). The answer, or null when there is none or
 * the question failed, goes to a callback that starts the hashing.
 */
final class ChecksumLookup {
  private final CompletableFuture<Throwable> done;

  private ChecksumLookup(CompletableFuture<Throwable> done) {
    this.done = done;
  }

  /** Sends the question on {@code pool} (from the calling thread when the pool's queue is full). */
  static ChecksumLookup start(BoundedExecutor pool, Backend backend, String bucket, String name, RemoteObject object,
      Consumer<RemoteChecksum> then) {
    CompletableFuture<RemoteChecksum> asked = new CompletableFuture<>();
    pool.execute(() -> {
      try {
        asked.complete(backend.fullChecksum(bucket, name, object));
      } catch (IOException | RuntimeException e) {
        asked.completeExceptionally(e);
      }
    });
    return new ChecksumLookup(asked.handle((full, failure) -> {
      then.accept(failure == null ? full : null);
      return failure;
    }));
  }

  /**
   * Waits until the callback has run; throws when the remote object changed meanwhile (the bytes on disk may then be
   * of two versions, and the checksum of neither).
   */
  void awaitUnchanged() throws BackendException {
    if (done.join() instanceof BackendException b && b.kind() == BackendException.Kind.CHANGED) {
      throw b;
    }
  }
}
