package io.granary.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.zip.CRC32C;

/**
 * Upload bytes on their way to a fake GCS object: appended to a temporary file while MD5 and CRC32C are computed,
 * so an object is never held whole in memory. Not thread-safe; one upload owns it.
 */
final class Staging extends OutputStream {
  static final int BUFFER = 64 * 1024;

  final Path file;
  private final OutputStream out;
  private final MessageDigest md5;
  private final CRC32C crc = new CRC32C();
  private long size;

  Staging(Path tmpDir) throws IOException {
    this.file = Files.createTempFile(tmpDir, "upload-", ".part");
    this.out = Files.newOutputStream(file);
    try {
      this.md5 = MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    out.write(b, off, len);
    md5.update(b, off, len);
    crc.update(b, off, len);
    size += len;
  }

  /** Copies {@code in} to the end; returns the bytes copied. */
  long append(InputStream in) throws IOException {
    byte[] buf = new byte[BUFFER];
    long n = 0;
    for (int r; (r = in.read(buf)) > 0; n += r) {
      write(buf, 0, r);
    }
    return n;
  }

  long size() {
    return size;
  }

  /** Closes the file; returns the base64 MD5 and base64 big-endian CRC32C. */
  String[] finish() throws IOException {
    out.close();
    return new String[] {Base64.getEncoder().encodeToString(md5.digest()), crc32cBase64(crc.getValue())};
  }

  void discard() {
    try {
      out.close();
      Files.deleteIfExists(file);
    } catch (IOException ignored) {
      // Temporary file in a test directory.
    }
  }

  static String crc32cBase64(long value) {
    return Base64.getEncoder().encodeToString(ByteBuffer.allocate(4).putInt((int) value).array());
  }
}
