package io.granary.common.s3.auth;

import io.granary.common.checksum.Crc64Nvme;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import java.util.zip.Checksum;

/** The S3 flexible checksums a client may send as an aws-chunked trailer ({@code x-amz-checksum-*}). */
public enum ChecksumAlgorithm {
  CRC32("x-amz-checksum-crc32"),
  CRC32C("x-amz-checksum-crc32c"),
  CRC64NVME("x-amz-checksum-crc64nvme"),
  SHA1("x-amz-checksum-sha1"),
  SHA256("x-amz-checksum-sha256");

  /** The prefix every checksum header shares. */
  static final String HEADER_PREFIX = "x-amz-checksum-";

  private final String header;

  ChecksumAlgorithm(String header) {
    this.header = header;
  }

  /** The header (or trailer) name, lower-case. */
  public String header() {
    return header;
  }

  /** The algorithm a lower-case header name carries; null for any other name. */
  static ChecksumAlgorithm forHeader(String name) {
    for (ChecksumAlgorithm a : values()) {
      if (a.header.equals(name.toLowerCase(Locale.ROOT))) {
        return a;
      }
    }
    return null;
  }

  /** A fresh running checksum of this algorithm. */
  Running start() {
    return switch (this) {
      case CRC32 -> new Crc(new CRC32(), 4);
      case CRC32C -> new Crc(new CRC32C(), 4);
      case CRC64NVME -> new Crc(new Crc64Nvme(), 8);
      case SHA1 -> new Digest("SHA-1");
      case SHA256 -> new Digest("SHA-256");
    };
  }

  /** A checksum being computed over a stream of buffers. Not thread-safe. */
  interface Running {
    /** Adds {@code data}'s remaining bytes; its position ends at its limit. */
    void update(ByteBuffer data);

    /** The checksum of everything added, as S3 encodes it before base64 (big-endian for CRCs). */
    byte[] finish();
  }

  private static final class Crc implements Running {
    private final Checksum crc;
    private final int width;

    Crc(Checksum crc, int width) {
      this.crc = crc;
      this.width = width;
    }

    @Override
    public void update(ByteBuffer data) {
      crc.update(data);
    }

    @Override
    public byte[] finish() {
      long v = crc.getValue();
      byte[] out = new byte[width];
      for (int i = width - 1; i >= 0; i--) {
        out[i] = (byte) v;
        v >>>= 8;
      }
      return out;
    }
  }

  private static final class Digest implements Running {
    private final MessageDigest md;

    Digest(String algorithm) {
      try {
        md = MessageDigest.getInstance(algorithm);
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException(algorithm + " is not available", e);
      }
    }

    @Override
    public void update(ByteBuffer data) {
      md.update(data);
    }

    @Override
    public byte[] finish() {
      return md.digest();
    }
  }
}
