package io.granary.target.ec;

import io.granary.clustermap.bucket.ChecksumType;
import io.granary.target.checksum.ContentHasher;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/**
 * A channel that hashes the bytes passing through it and counts them: a slice's checksum computed as the encoder
 * writes it or the decoder reads it, an object's as it is rebuilt. Closing does not close the channel wrapped.
 */
final class HashedChannel implements ReadableByteChannel, WritableByteChannel {
  private final ReadableByteChannel in;
  private final WritableByteChannel out;
  private final ContentHasher hasher;
  private long bytes;

  private HashedChannel(ReadableByteChannel in, WritableByteChannel out, ChecksumType type) {
    this.in = in;
    this.out = out;
    this.hasher = ContentHasher.of(type);
  }

  static HashedChannel reading(ReadableByteChannel in, ChecksumType type) {
    return new HashedChannel(in, null, type);
  }

  static HashedChannel writing(WritableByteChannel out, ChecksumType type) {
    return new HashedChannel(null, out, type);
  }

  @Override
  public int read(ByteBuffer dst) throws IOException {
    int start = dst.position();
    int n = in.read(dst);
    if (n > 0) {
      hasher.update(dst.duplicate().position(start).limit(start + n));
      bytes += n;
    }
    return n;
  }

  @Override
  public int write(ByteBuffer src) throws IOException {
    hasher.update(src); // leaves the position as it is
    int n = 0;
    while (src.hasRemaining()) {
      n += out.write(src);
    }
    bytes += n;
    return n;
  }

  long bytes() {
    return bytes;
  }

  /** The checksum of everything passed so far; once, at the end. */
  String hex() {
    return hasher.hex();
  }

  @Override
  public boolean isOpen() {
    return true;
  }

  @Override
  public void close() {
  }
}
