package io.granary.target.checksum;

import io.granary.clustermap.bucket.ChecksumType;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** MD5 or SHA-256 via the JDK's {@link MessageDigest}. */
final class DigestHasher implements ContentHasher {
  private final ChecksumType type;
  private final MessageDigest md;

  DigestHasher(ChecksumType type, String algorithm) {
    this.type = type;
    try {
      this.md = MessageDigest.getInstance(algorithm);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("JDK lacks " + algorithm, e);
    }
  }

  @Override
  public ChecksumType type() {
    return type;
  }

  @Override
  public void update(ByteBuffer buf) {
    md.update(buf.duplicate());
  }

  @Override
  public String hex() {
    return HexFormat.of().formatHex(md.digest());
  }
}
