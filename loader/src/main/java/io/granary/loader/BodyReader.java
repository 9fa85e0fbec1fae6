package io.granary.loader;

import io.granary.loader.protocol.ObjectClient;
import io.granary.loader.workload.Content;
import io.granary.loader.workload.NamePool;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * One worker's GET body reader: reads into a reusable buffer and discards, or with {@code --verify} checks what
 * it read. An object this run PUT is compared byte for byte with its regenerated content (size included);
 * any other object is checked against its ETag when that is an MD5 (32 hex digits, as S3 PUTs and MD5 buckets
 * give); objects with other ETags are read but not counted as verified. Not thread-safe: one per worker.
 */
final class BodyReader {
  private static final Pattern MD5_HEX = Pattern.compile("[0-9a-fA-F]{32}");

  private final byte[] buf = new byte[128 * 1024];
  private final byte[] scratch = new byte[32 * 1024];
  private final boolean verify;
  private final long runSeed;
  private final MessageDigest md5;
  /** Whether the last {@link #read} checked the content (and found it right: a mismatch throws). */
  private boolean verified;

  BodyReader(boolean verify, long runSeed) {
    this.verify = verify;
    this.runSeed = runSeed;
    try {
      this.md5 = MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  boolean verified() {
    return verified;
  }

  /** Reads the whole body of {@code e}; a verification failure is an {@link IOException} naming the object. */
  long read(InputStream in, String etag, NamePool.Entry e) throws IOException {
    return read(in, etag, e, 0, 0);
  }

  /**
   * Reads the body of a GET of {@code e} from byte {@code offset}, {@code length} bytes ({@code 0}: to the end;
   * both 0: the whole object). A range of an object this run PUT is checked against the same range of its content;
   * a range of any other object cannot be checked against its ETag and is only read.
   */
  long read(InputStream in, String etag, NamePool.Entry e, long offset, long length) throws IOException {
    verified = false;
    boolean ranged = offset > 0 || length > 0;
    boolean own = verify && e.written();
    boolean byMd5 = verify && !own && !ranged && etag != null && MD5_HEX.matcher(etag).matches();
    long seed = own ? Content.objectSeed(runSeed, e.name()) : 0;
    long expected = !own ? -1 : length == 0 ? Math.max(0, e.size() - offset) : Math.min(length,
        Math.max(0, e.size() - offset));
    if (byMd5) {
      md5.reset();
    }
    long pos = 0;
    if (!own && !byMd5) {
      return ObjectClient.discard(in, buf);
    }
    for (int n; (n = in.read(buf, 0, buf.length)) >= 0; ) {
      if (own && (pos + n > expected || !Content.matches(seed, offset + pos, buf, 0, n, scratch))) {
        throw new IOException("verify " + e.name() + ": content differs from what was PUT, within bytes "
            + (offset + pos) + "-" + (offset + pos + n - 1));
      }
      if (byMd5) {
        md5.update(buf, 0, n);
      }
      pos += n;
    }
    if (own && pos != expected) {
      throw new IOException("verify " + e.name() + ": " + pos + " bytes" + (ranged ? " of a range of " + expected
          : ", PUT " + e.size()));
    }
    if (byMd5 && !HexFormat.of().formatHex(md5.digest()).equalsIgnoreCase(etag)) {
      throw new IOException("verify " + e.name() + ": MD5 of the body differs from ETag " + etag);
    }
    verified = own || byMd5;
    return pos;
  }
}
