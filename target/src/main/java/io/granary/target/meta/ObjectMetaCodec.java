package io.granary.target.meta;

import io.granary.clustermap.acl.CannedAcl;
import io.granary.clustermap.bucket.ChecksumType;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The stored form of {@link ObjectMeta}: a small versioned binary record, read on every GET, so it avoids a JSON
 * parse. Layout (big-endian, strings as Java modified-UTF-8 with a 2-byte length):
 *
 * <pre>
 * byte   format version (4, 5, 6 or 7, the lowest that holds the record; older records, without the fields of later
 *        versions, are still read)
 * long   size
 * long   mtime (epoch ms)
 * byte   checksum type (1 xxhash64, 2 md5, 3 crc32c, 4 sha256, 5 crc32, 6 sha1; stable, never reordered)
 * str    checksum hex (v1: a 1-byte length and ASCII)
 * v2:
 * byte   flags: 1 = has etag, 2 = has content type
 * str    etag, str content type (when flagged)
 * short  number of user metadata entries, then name/value strings
 * v3:
 * short  number of stored standard headers, then name/value strings
 * int    number of parts (multipart objects), then each part's size as a long
 * v4:
 * byte   flags: 1 = copy of a remote object, 2 = has remote etag, 4 = has remote version
 * str    remote etag, str remote version (when flagged), long remote last-modified (when a copy)
 * v5:
 * byte   canned ACL (0 private, 1 public-read; stable, never reordered); records before v5 are private, and a
 *        private object is still written as v4
 * v6:
 * byte   flexible checksum type (the checksum type codes above), byte kind (0 FULL_OBJECT, 1 COMPOSITE), str hex;
 *        records before v6 have none, and a record without one is still written as v4 or v5
 * v7:
 * int    number of part checksums (those of the flexible checksum's algorithm, of an object completed from a
 *        multipart upload), byte width of each (4 crc32/crc32c, 8 crc64nvme, 20 sha1, 32 sha256), then each one's
 *        bytes in part order; records before v7 have none, and a record without them is still written as v6 or lower
 * v8 (replaces the v6 and v7 parts, which it makes optional):
 * byte   flags: 1 = has a flexible checksum (then as in v6), 2 = has part checksums (then as in v7)
 * short  number of mirror copies besides the main one, then each one's mountpath id (str); records before v8 have
 *        none (one copy), and a record without copies is still written as v7 or lower
 * </pre>
 *
 * A new field gets a new format version; readers keep reading every older version.
 */
public final class ObjectMetaCodec {
  private static final byte V1 = 1;
  private static final byte V2 = 2;
  private static final byte V3 = 3;
  private static final byte V4 = 4;
  private static final byte V5 = 5;
  private static final byte V6 = 6;
  private static final byte V7 = 7;
  private static final byte V8 = 8;
  /** Mirror copies are bounded by mountpaths (bucket property mirror.copies is at most 64). */
  private static final int MAX_COPIES = 64;

  private ObjectMetaCodec() {}

  public static byte[] encode(ObjectMeta m) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + m.checksum().length());
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      // A private object's record is written as v4 (v5 without its last byte): a target of an older release, which
      // reads up to v4, can still take it in a rebalance during a rolling upgrade.
      // Likewise a record without a flexible checksum is written as v5 or v4.
      FlexibleChecksum flexible = m.flexible();
      // Likewise a record of one copy is written as v7 or lower.
      boolean v8 = !m.copies().isEmpty();
      boolean v5 = m.acl() != CannedAcl.PRIVATE || flexible != null || v8;
      boolean parts = flexible != null && !flexible.parts().isEmpty();
      boolean v7 = !v8 && parts;
      out.writeByte(v8 ? V8 : v7 ? V7 : flexible != null ? V6 : v5 ? V5 : V4);
      out.writeLong(m.size());
      out.writeLong(m.mtime());
      out.writeByte(code(m.checksumType()));
      out.writeUTF(m.checksum());
      int flags = (m.etag() != null ? 1 : 0) | (m.contentType() != null ? 2 : 0);
      out.writeByte(flags);
      if (m.etag() != null) {
        out.writeUTF(m.etag());
      }
      if (m.contentType() != null) {
        out.writeUTF(m.contentType());
      }
      writeMap(out, m.userMeta());
      writeMap(out, m.headers());
      out.writeInt(m.partSizes().size());
      for (long size : m.partSizes()) {
        out.writeLong(size);
      }
      RemoteVersion r = m.remote();
      if (r == null) {
        out.writeByte(0);
      } else {
        out.writeByte(1 | (r.etag() != null ? 2 : 0) | (r.version() != null ? 4 : 0));
        if (r.etag() != null) {
          out.writeUTF(r.etag());
        }
        if (r.version() != null) {
          out.writeUTF(r.version());
        }
        out.writeLong(r.lastModified());
      }
      if (v5) {
        out.writeByte(aclCode(m.acl()));
      }
      if (v8) {
        out.writeByte((flexible != null ? 1 : 0) | (parts ? 2 : 0));
      }
      if (flexible != null) {
        out.writeByte(code(flexible.type()));
        out.writeByte(flexible.kind() == FlexibleChecksum.Kind.FULL_OBJECT ? 0 : 1);
        out.writeUTF(flexible.hex());
      }
      if (v7 || (v8 && parts)) {
        writePartChecksums(out, flexible.parts());
      }
      if (v8) {
        if (m.copies().size() > MAX_COPIES) {
          throw new IllegalArgumentException("too many mirror copies: " + m.copies().size());
        }
        out.writeShort(m.copies().size());
        for (String mp : m.copies()) {
          out.writeUTF(mp);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
    }
    return bytes.toByteArray();
  }

  /** Bytes of an encoded record up to the end of its size field (a version byte, then the size). */
  public static final int SIZE_END = 9;

  /** The size field of an encoded record, without decoding the rest (every version starts version, size, mtime). */
  public static long size(byte[] b) {
    return readLong(b, 1);
  }

  /** The mtime field of an encoded record, without decoding the rest. */
  public static long mtime(byte[] b) {
    return readLong(b, 9);
  }

  private static long readLong(byte[] b, int off) {
    long v = 0;
    for (int i = off; i < off + 8; i++) {
      v = (v << 8) | (b[i] & 0xff);
    }
    return v;
  }

  public static ObjectMeta decode(byte[] b) throws IOException {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(b))) {
      byte version = in.readByte();
      if (version < V1 || version > V8) {
        throw new IOException("unknown object metadata format version " + version);
      }
      long size = in.readLong();
      long mtime = in.readLong();
      ChecksumType type = type(in.readByte());
      if (version == V1) {
        byte[] sum = new byte[in.readUnsignedByte()];
        in.readFully(sum);
        return new ObjectMeta(size, type, new String(sum, StandardCharsets.US_ASCII), mtime);
      }
      String checksum = in.readUTF();
      int flags = in.readUnsignedByte();
      String etag = (flags & 1) != 0 ? in.readUTF() : null;
      String contentType = (flags & 2) != 0 ? in.readUTF() : null;
      Map<String, String> user = readMap(in);
      if (version == V2) {
        return new ObjectMeta(size, type, checksum, mtime, etag, contentType, user);
      }
      Map<String, String> headers = readMap(in);
      int parts = in.readInt();
      if (parts < 0 || parts > 10_000) {
        throw new IOException("corrupt object metadata record: " + parts + " parts");
      }
      List<Long> sizes = new ArrayList<>(parts);
      for (int i = 0; i < parts; i++) {
        sizes.add(in.readLong());
      }
      RemoteVersion remote = null;
      if (version >= V4) {
        int rf = in.readUnsignedByte();
        if ((rf & 1) != 0) {
          String re = (rf & 2) != 0 ? in.readUTF() : null;
          String rv = (rf & 4) != 0 ? in.readUTF() : null;
          remote = new RemoteVersion(re, rv, in.readLong());
        }
      }
      CannedAcl acl = version >= V5 ? acl(in.readByte()) : CannedAcl.PRIVATE;
      int present = version >= V8 ? in.readUnsignedByte() : version == V7 ? 3 : version == V6 ? 1 : 0;
      if ((present & ~3) != 0 || present == 2) {
        throw new IOException("corrupt object metadata record: flags " + present);
      }
      FlexibleChecksum flexible = (present & 1) != 0 ? flexible(in) : null;
      if ((present & 2) != 0) {
        flexible = flexible.withParts(readPartChecksums(in));
      }
      List<String> copies = version >= V8 ? readCopies(in) : List.of();
      return new ObjectMeta(size, type, checksum, mtime, etag, contentType, user, headers, sizes, remote, acl,
          flexible, copies);
    } catch (EOFException | IllegalArgumentException e) {
      throw new IOException("corrupt object metadata record of " + b.length + " bytes", e);
    }
  }

  private static void writeMap(DataOutputStream out, Map<String, String> map) throws IOException {
    if (map.size() > Short.MAX_VALUE) {
      throw new IllegalArgumentException("too many metadata entries");
    }
    out.writeShort(map.size());
    for (Map.Entry<String, String> e : map.entrySet()) {
      out.writeUTF(e.getKey());
      out.writeUTF(e.getValue());
    }
  }

  private static Map<String, String> readMap(DataInputStream in) throws IOException {
    int n = in.readUnsignedShort();
    Map<String, String> map = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      map.put(in.readUTF(), in.readUTF());
    }
    return map;
  }

  private static FlexibleChecksum flexible(DataInputStream in) throws IOException {
    ChecksumType type = type(in.readByte());
    FlexibleChecksum.Kind kind = switch (in.readByte()) {
      case 0 -> FlexibleChecksum.Kind.FULL_OBJECT;
      case 1 -> FlexibleChecksum.Kind.COMPOSITE;
      default -> throw new IOException("unknown flexible checksum kind");
    };
    return new FlexibleChecksum(type, in.readUTF(), kind);
  }

  private static List<String> readCopies(DataInputStream in) throws IOException {
    int n = in.readUnsignedShort();
    if (n < 1 || n > MAX_COPIES) {
      throw new IOException("corrupt object metadata record: " + n + " mirror copies");
    }
    List<String> copies = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      copies.add(in.readUTF());
    }
    return copies;
  }

  private static void writePartChecksums(DataOutputStream out, List<String> parts) throws IOException {
    int width = parts.get(0).length() / 2;
    out.writeInt(parts.size());
    out.writeByte(width);
    for (String hex : parts) {
      byte[] b = HexFormat.of().parseHex(hex);
      if (b.length != width) {
        throw new IllegalArgumentException("part checksums of different widths: " + b.length + " and " + width);
      }
      out.write(b);
    }
  }

  private static List<String> readPartChecksums(DataInputStream in) throws IOException {
    int n = in.readInt();
    int width = in.readUnsignedByte();
    if (n < 1 || n > 10_000 || width < 1 || width > 64) {
      throw new IOException("corrupt object metadata record: " + n + " part checksums of " + width + " bytes");
    }
    List<String> parts = new ArrayList<>(n);
    byte[] b = new byte[width];
    for (int i = 0; i < n; i++) {
      in.readFully(b);
      parts.add(HexFormat.of().formatHex(b));
    }
    return parts;
  }

  private static byte aclCode(CannedAcl acl) {
    return switch (acl) {
      case PRIVATE -> 0;
      case PUBLIC_READ -> 1;
    };
  }

  private static CannedAcl acl(byte code) throws IOException {
    return switch (code) {
      case 0 -> CannedAcl.PRIVATE;
      case 1 -> CannedAcl.PUBLIC_READ;
      default -> throw new IOException("unknown canned ACL code " + code);
    };
  }

  private static byte code(ChecksumType t) {
    return switch (t) {
      case XXHASH64 -> 1;
      case MD5 -> 2;
      case CRC32C -> 3;
      case SHA256 -> 4;
      case CRC32 -> 5;
      case SHA1 -> 6;
      case CRC64NVME -> 7;
    };
  }

  private static ChecksumType type(byte code) throws IOException {
    return switch (code) {
      case 1 -> ChecksumType.XXHASH64;
      case 2 -> ChecksumType.MD5;
      case 3 -> ChecksumType.CRC32C;
      case 4 -> ChecksumType.SHA256;
      case 5 -> ChecksumType.CRC32;
      case 6 -> ChecksumType.SHA1;
      case 7 -> ChecksumType.CRC64NVME;
      default -> throw new IOException("unknown checksum type code " + code);
    };
  }
}
