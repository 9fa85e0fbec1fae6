package io.granary.backend.s3;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import software.amazon.awssdk.http.ContentStreamProvider;

/**
 * One byte range of a file as a request body. Each {@link #newStream()} reopens the range from its start, so the
 * SDK can retry a part; only the SDK's small copy buffer is ever in memory, never the part.
 */
final class FileRangeContent implements ContentStreamProvider {
  private final Path file;
  private final long start;
  private final long length;

  FileRangeContent(Path file, long start, long length) {
    this.file = file;
    this.start = start;
    this.length = length;
  }

  @Override
  public InputStream newStream() {
    try {
      return new RangeStream(FileChannel.open(file, StandardOpenOption.READ), start, length);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Positional reads of [start, start+length) from a channel it owns. */
  private static final class RangeStream extends InputStream {
    private final FileChannel ch;
    private long pos;
    private final long end;

    RangeStream(FileChannel ch, long start, long length) {
      this.ch = ch;
      this.pos = start;
      this.end = start + length;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (pos >= end) {
        return -1;
      }
      int n = ch.read(ByteBuffer.wrap(b, off, (int) Math.min(len, end - pos)), pos);
      if (n < 0) {
        throw new IOException("file shrank while uploading: ended at " + pos + ", expected " + end);
      }
      pos += n;
      return n;
    }

    @Override
    public int available() {
      return (int) Math.min(Integer.MAX_VALUE, end - pos);
    }

    @Override
    public void close() throws IOException {
      ch.close();
    }
  }
}
