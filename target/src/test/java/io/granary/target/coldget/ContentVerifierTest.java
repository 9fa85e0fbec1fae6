package io.granary.target.coldget;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.backend.RemoteChecksum;
import io.granary.backend.RemoteObject;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.common.error.ChecksumMismatchException;
import io.granary.target.checksum.ContentHasher;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Which of a remote's checksums a cold object is verified against, seen from the verdicts: a whole-content checksum
 * of the bucket's own type wins over an MD5 ETag (so MD5, the dearest hash, is not computed), one of another type
 * does not, and each kind of mismatch is caught.
 */
class ContentVerifierTest {
  private static final byte[] CONTENT = new byte[300_000];

  static {
    new Random(7).nextBytes(CONTENT);
  }

  @Test
  void wholeContentChecksumOfTheBucketsType_isPreferredOverTheMd5Etag() {
    String crc32c = hash(ChecksumType.CRC32C, CONTENT);
    // The ETag claims an MD5 the content does not have: a verifier that hashed MD5 would fail.
    RemoteObject object = object(hash(ChecksumType.MD5, new byte[] {1}));
    ContentVerifier v = verifier(ChecksumType.CRC32C, object, new RemoteChecksum(ChecksumType.CRC32C, crc32c));
    assertThat(v.vouched()).isTrue();
    assertThat(v.verify()).isEqualTo(crc32c);

    ContentVerifier wrong = verifier(ChecksumType.CRC32C, object(hash(ChecksumType.MD5, CONTENT)),
        new RemoteChecksum(ChecksumType.CRC32C, hash(ChecksumType.CRC32C, new byte[] {1})));
    assertThatThrownBy(wrong::verify).isInstanceOf(ChecksumMismatchException.class).hasMessageContaining("crc32c");
  }

  @Test
  void wholeContentChecksumOfAnotherType_leavesTheMd5EtagInCharge() {
    RemoteChecksum crc32 = new RemoteChecksum(ChecksumType.CRC32, hash(ChecksumType.CRC32, CONTENT));
    ContentVerifier good = verifier(ChecksumType.CRC32C, object(hash(ChecksumType.MD5, CONTENT)), crc32);
    assertThat(good.verify()).isEqualTo(hash(ChecksumType.CRC32C, CONTENT));

    ContentVerifier badMd5 = verifier(ChecksumType.CRC32C, object(hash(ChecksumType.MD5, new byte[] {1})), crc32);
    assertThatThrownBy(badMd5::verify).isInstanceOf(ChecksumMismatchException.class).hasMessageContaining("md5");
  }

  @Test
  void onlyObjectsWithAnMd5AndNoCrc32c_inBucketsOfATypeS3Keeps_areWorthAskingAbout() {
    RemoteObject md5Only = object(hash(ChecksumType.MD5, CONTENT));
    assertThat(ContentVerifier.mayBeSparedMd5(ChecksumType.CRC64NVME, md5Only)).isTrue();
    assertThat(ContentVerifier.mayBeSparedMd5(ChecksumType.SHA256, md5Only)).isTrue();
    assertThat(ContentVerifier.mayBeSparedMd5(ChecksumType.MD5, md5Only)).as("MD5 is hashed once anyway").isFalse();
    assertThat(ContentVerifier.mayBeSparedMd5(ChecksumType.XXHASH64, md5Only)).as("S3 keeps no xxhash").isFalse();
    RemoteObject gcs = new RemoteObject("k", CONTENT.length, "1", null, 0, hash(ChecksumType.MD5, CONTENT),
        hash(ChecksumType.CRC32C, CONTENT), null, null);
    assertThat(ContentVerifier.mayBeSparedMd5(ChecksumType.CRC64NVME, gcs)).as("CRC32C is cheap already").isFalse();
  }

  private static ContentVerifier verifier(ChecksumType bucketType, RemoteObject object, RemoteChecksum full) {
    ContentVerifier v = new ContentVerifier(bucketType, object, full);
    v.update(ByteBuffer.wrap(CONTENT));
    return v;
  }

  private static RemoteObject object(String md5) {
    return new RemoteObject("k", CONTENT.length, md5, null, 0, md5, null, null, null);
  }

  private static String hash(ChecksumType type, byte[] data) {
    ContentHasher h = ContentHasher.of(type);
    h.update(ByteBuffer.wrap(data));
    return h.hex();
  }
}
