package io.granary.target.http;

import java.io.IOException;
import java.nio.channels.FileChannel;

/**
 * The read channel of a {@link GrowingFile}, shared by its writer and the responses streaming it: open while the
 * writer runs or any reader still streams (it survives the rename that commits the file); the last one out closes
 * it. The writer counts as the first user.
 */
public final class SharedReadChannel {
  private volatile FileChannel channel;
  private int users = 1; // the writer, until it ends
  private boolean closed;

  /** The writer opened the file for its readers. */
  public void open(FileChannel ch) {
    this.channel = ch;
  }

  /** The file, open for reading; null before {@link #open}. */
  public FileChannel channel() {
    return channel;
  }

  /** Registers a reader; false once the last user left (read the committed object then). */
  public synchronized boolean acquire() {
    if (closed) {
      return false;
    }
    users++;
    return true;
  }

  /** Readers registered now, not counting the writer (while it runs). */
  public synchronized int readers() {
    return closed ? 0 : Math.max(0, users - 1);
  }

  /** Unregisters a reader (or the writer); the last one closes the channel. */
  public void release() {
    FileChannel toClose = null;
    synchronized (this) {
      if (--users == 0 && !closed) {
        closed = true;
        toClose = channel;
      }
    }
    if (toClose != null) {
      try {
        toClose.close();
      } catch (IOException ignored) {
        // the descriptor is gone either way
      }
    }
  }
}
