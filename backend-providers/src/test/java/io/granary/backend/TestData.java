package io.granary.backend;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.SplittableRandom;

/** Deterministic test content and streaming digests, so no test holds a large object in memory. */
public final class TestData {
  private TestData() {}

  /** {@code size} pseudo-random bytes from {@code seed}. */
  public static byte[] bytes(int size, long seed) {
    byte[] b = new byte[size];
    SplittableRandom r = new SplittableRandom(seed);
    for (int i = 0; i < size; i++) {
      b[i] = (byte) r.nextInt(256);
    }
    return b;
  }

  /** Writes {@code size} pseudo-random bytes through a 1 MiB buffer. */
  public static Path file(Path file, long size, long seed) throws IOException {
    SplittableRandom r = new SplittableRandom(seed);
    byte[] buf = new byte[1 << 20];
    try (OutputStream out = Files.newOutputStream(file)) {
      for (long left = size; left > 0; ) {
        int n = (int) Math.min(buf.length, left);
        for (int i = 0; i < n; i += 8) {
          long v = r.nextLong();
          for (int j = 0; j < 8 && i + j < n; j++) {
            buf[i + j] = (byte) (v >>> (8 * j));
          }
        }
        out.write(buf, 0, n);
        left -= n;
      }
    }
    return file;
  }

  public static Path file(Path file, byte[] content) throws IOException {
    return Files.write(file, content);
  }

  public static String sha256(Path file) throws IOException {
    MessageDigest md = digest("SHA-256");
    ByteBuffer buf = ByteBuffer.allocate(1 << 16);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      while (ch.read(buf.clear()) >= 0) {
        md.update(buf.flip());
      }
    }
    return HexFormat.of().formatHex(md.digest());
  }

  public static String sha256(byte[] b) {
    return HexFormat.of().formatHex(digest("SHA-256").digest(b));
  }

  public static String md5Hex(byte[] b) {
    return HexFormat.of().formatHex(digest("MD5").digest(b));
  }

  /** Reads {@code read} to its end through a direct buffer, hashing as it goes; also checks the byte count. */
  public static String sha256(RemoteRead read) throws IOException {
    MessageDigest md = digest("SHA-256");
    ByteBuffer buf = ByteBuffer.allocateDirect(100_000); // not a multiple of the staging size on purpose
    long total = 0;
    int n;
    while ((n = read.read(buf.clear())) >= 0) {
      total += n;
      md.update(buf.flip());
    }
    if (total != read.length()) {
      throw new AssertionError("read " + total + " bytes, promised " + read.length());
    }
    return HexFormat.of().formatHex(md.digest());
  }

  /** Reads all of {@code read} into a heap array (small objects only). */
  public static byte[] readAll(RemoteRead read, boolean direct) throws IOException {
    byte[] out = new byte[Math.toIntExact(read.length())];
    ByteBuffer buf = direct ? ByteBuffer.allocateDirect(7_000) : ByteBuffer.allocate(7_000);
    int pos = 0;
    int n;
    while ((n = read.read(buf.clear())) >= 0) {
      buf.flip().get(out, pos, n);
      pos += n;
    }
    if (pos != out.length) {
      throw new AssertionError("read " + pos + " bytes, promised " + out.length);
    }
    return out;
  }

  private static MessageDigest digest(String algorithm) {
    try {
      return MessageDigest.getInstance(algorithm);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
