package io.granary.target.http;

import java.nio.channels.FileChannel;
import java.util.concurrent.CompletableFuture;

/**
 * A work file being written while clients read it: a cold GET's download, an object being rebuilt from its
 * erasure-coded slices. Readers may send bytes {@code [0, available())}; the writer holds back the last byte until
 * the content is verified, so that a client never has a whole object that failed its checksum.
 */
public interface GrowingFile {
  /** Bytes from offset 0 that may be sent to clients now. */
  long available();

  /** The work file, open for reading (it survives the rename that commits it). */
  FileChannel channel();

  /** Completes once the writer is done; exceptionally when it failed (readers then cut their clients off). */
  CompletableFuture<?> finished();

  /** Calls {@code listener} whenever more bytes become available or the writer ends (any thread). */
  void listen(Runnable listener);

  void unlisten(Runnable listener);

  /** This reader is done with the file: the last one out closes it. */
  void release();

  /** This reader's response head and first bytes are out, or never will be (a writer may wait for that). */
  default void firstBytesSent() {
  }
}
