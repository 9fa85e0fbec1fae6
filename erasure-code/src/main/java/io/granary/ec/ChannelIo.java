package io.granary.ec;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/** Whole-buffer reads and writes on blocking channels. */
final class ChannelIo {
  private ChannelIo() {}

  /** Reads until {@code buffer} is full or the channel ends; returns the bytes read. */
  static int readFully(ReadableByteChannel channel, ByteBuffer buffer) throws IOException {
    int total = 0;
    while (buffer.hasRemaining()) {
      int n = channel.read(buffer);
      if (n < 0) {
        break;
      }
      total += n;
    }
    return total;
  }

  static void writeFully(WritableByteChannel channel, ByteBuffer buffer) throws IOException {
    while (buffer.hasRemaining()) {
      channel.write(buffer);
    }
  }
}
