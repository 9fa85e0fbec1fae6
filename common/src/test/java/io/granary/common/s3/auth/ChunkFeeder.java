package io.granary.common.s3.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Feeds an encoded body to an {@link AwsChunkedDecoder} in pieces, the way a socket would deliver it, and collects
 * what comes out. Every input buffer is released after its feed and every output slice after it was copied, and
 * at the end all of them must be fully released (the decoder retained exactly what it handed on).
 */
final class ChunkFeeder {
  private static final ByteBufAllocator POOLED = PooledByteBufAllocator.DEFAULT;

  /** How the body is cut into the buffers fed one by one. */
  enum Split {
    WHOLE, ONE_BYTE, SEVEN_BYTES, RANDOM, COMPOSITE;

    int next(Random random, int remaining) {
      return switch (this) {
        case WHOLE -> remaining;
        case ONE_BYTE -> 1;
        case SEVEN_BYTES -> Math.min(7, remaining);
        case RANDOM, COMPOSITE -> Math.min(1 + random.nextInt(random.nextBoolean() ? 16 : 20_000), remaining);
      };
    }
  }

  private final List<ByteBuf> inputs = new ArrayList<>();
  private final ByteArrayOutputStream decoded = new ByteArrayOutputStream();

  private ChunkFeeder() {
  }

  /** Feeds all of {@code body}, then calls finish(); returns the decoded bytes. Throws whatever the decoder throws. */
  static byte[] decode(AwsChunkedDecoder decoder, byte[] body, Split split) {
    ChunkFeeder f = new ChunkFeeder();
    try {
      f.feed(decoder, body, split);
      decoder.finish();
      return f.decoded.toByteArray();
    } finally {
      f.assertAllReleased();
    }
  }

  /** Feeds all of {@code body} without finishing; returns the bytes decoded so far. */
  static byte[] feedOnly(AwsChunkedDecoder decoder, byte[] body, Split split) {
    ChunkFeeder f = new ChunkFeeder();
    try {
      f.feed(decoder, body, split);
      return f.decoded.toByteArray();
    } finally {
      f.assertAllReleased();
    }
  }

  private void feed(AwsChunkedDecoder decoder, byte[] body, Split split) {
    Random random = new Random(body.length * 31L + split.ordinal());
    int off = 0;
    while (off < body.length) {
      int n = split.next(random, body.length - off);
      ByteBuf in = buffer(split, body, off, n, random);
      inputs.add(in);
      try {
        decoder.feed(in, slice -> {
          try {
            byte[] b = new byte[slice.readableBytes()];
            slice.readBytes(b);
            decoded.writeBytes(b);
          } finally {
            slice.release();
          }
        });
        assertThat(in.isReadable()).as("feed consumes its whole input").isFalse();
      } finally {
        in.release();
      }
      off += n;
    }
  }

  /**
   * Tiny pieces are unpooled heap buffers (paranoid leak tracking of a buffer per byte would be slow); larger ones
   * pooled direct buffers, or composites of a few direct components so the decoder sees several NIO buffers.
   */
  private static ByteBuf buffer(Split split, byte[] body, int off, int n, Random random) {
    if (n <= 16) {
      return Unpooled.wrappedBuffer(Arrays.copyOfRange(body, off, off + n));
    }
    if (split == Split.COMPOSITE) {
      CompositeByteBuf c = POOLED.compositeDirectBuffer();
      int done = 0;
      while (done < n) {
        int part = Math.min(n - done, 1 + random.nextInt(n));
        c.addComponent(true, POOLED.directBuffer(part).writeBytes(body, off + done, part));
        done += part;
      }
      return c;
    }
    return POOLED.directBuffer(n).writeBytes(body, off, n);
  }

  private void assertAllReleased() {
    for (ByteBuf in : inputs) {
      assertThat(in.refCnt()).as("input buffer released, with every slice handed on").isZero();
    }
  }
}
