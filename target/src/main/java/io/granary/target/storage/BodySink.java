package io.granary.target.storage;

import io.netty.buffer.ByteBuf;
import java.io.IOException;

/**
 * Where {@link OffLoopWrites} puts a request body on the disk pool: an object's work file ({@link PutOperation}),
 * or an erasure-coded slice's ({@code io.granary.target.ec}).
 */
public interface BodySink {
  /** Writes {@code buf}'s readable bytes. Disk pool. */
  void write(ByteBuf buf) throws IOException;

  /** Abandons what was written (removes the work file). Idempotent. */
  void discard();
}
