package io.granary.target.meta;

import io.granary.clustermap.bucket.ChecksumType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The stored form of {@link ObjectMeta}: a small versioned binary record, read on every GET, so it avoids a JSON
 * parse. Layout (big-endian):
 *
 * <pre>
 * byte   format version (1)
 * long   size
 * long   mtime (epoch ms)
 * byte   checksum type (1 xxhash64, 2 md5, 3 crc32c, 4 sha256; codes are stable, never reordered)
 * byte   n, then n ASCII bytes: checksum hex
 * </pre>
 *
 * A new field gets a new format version; readers keep reading every older version.
 */
public final class ObjectMetaCodec {
  private static final byte V1 = 1;

  private ObjectMetaCodec() {}

  public static byte[] encode(ObjectMeta m) {
    byte[] sum = m.checksum().getBytes(StandardCharsets.US_ASCII);
    if (sum.length > 255) {
      throw new IllegalArgumentException("checksum longer than 255 characters");
    }
    return ByteBuffer.allocate(1 + 8 + 8 + 1 + 1 + sum.length)
        .put(V1).putLong(m.size()).putLong(m.mtime()).put(code(m.checksumType())).put((byte) sum.length).put(sum)
        .array();
  }

  public static ObjectMeta decode(byte[] b) throws IOException {
    try {
      ByteBuffer in = ByteBuffer.wrap(b);
      byte version = in.get();
      if (version != V1) {
        throw new IOException("unknown object metadata format version " + version);
      }
      long size = in.getLong();
      long mtime = in.getLong();
      ChecksumType type = type(in.get());
      byte[] sum = new byte[in.get() & 0xff];
      in.get(sum);
      return new ObjectMeta(size, type, new String(sum, StandardCharsets.US_ASCII), mtime);
    } catch (java.nio.BufferUnderflowException | IllegalArgumentException e) {
      throw new IOException("corrupt object metadata record of " + b.length + " bytes", e);
    }
  }

  private static byte code(ChecksumType t) {
    return switch (t) {
      case XXHASH64 -> 1;
      case MD5 -> 2;
      case CRC32C -> 3;
      case SHA256 -> 4;
    };
  }

  private static ChecksumType type(byte code) throws IOException {
    return switch (code) {
      case 1 -> ChecksumType.XXHASH64;
      case 2 -> ChecksumType.MD5;
      case 3 -> ChecksumType.CRC32C;
      case 4 -> ChecksumType.SHA256;
      default -> throw new IOException("unknown checksum type code " + code);
    };
  }
}
