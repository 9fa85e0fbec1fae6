package io.granary.backend;

import java.nio.channels.ReadableByteChannel;

/**
 * An open read of (part of) a remote object. {@link #read} blocks, fills the buffer with what arrived (direct
 * buffers included), returns -1 only after exactly {@link #length()} bytes, and throws
 * {@link BackendException} (TRUNCATED, UNAVAILABLE for a stall past the read timeout) otherwise. Closing it early
 * aborts the transfer without draining the rest.
 */
public interface RemoteRead extends ReadableByteChannel {
  /** The object as the read's response describes it (size is the whole object's). */
  RemoteObject object();

  /** First byte served. */
  long offset();

  /** Bytes this read will deliver. */
  long length();
}
