package io.granary.target.checksum;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.clustermap.bucket.ChecksumType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import java.util.zip.CRC32C;
import net.openhft.hashing.LongHashFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ContentHasherTest {
  private static final LongHashFunction XX = LongHashFunction.xx(0);

  /** How the input is cut into update() calls and what kind of buffers carry it. */
  enum Feed {
    WHOLE_HEAP, WHOLE_DIRECT, ONE_BYTE_HEAP, ONE_BYTE_DIRECT, RANDOM_HEAP, RANDOM_DIRECT, RANDOM_MIXED_OFFSET
  }

  // ---------------------------------------------------------------- xxhash64

  @Test
  void xxh64_knownVectors() {
    assertThat(hash(new Xxh64Hasher(0), "abc".getBytes(StandardCharsets.US_ASCII), Feed.WHOLE_HEAP, null))
        .isEqualTo("44bc2cf5ad770999");
    assertThat(hash(new Xxh64Hasher(0), new byte[0], Feed.WHOLE_HEAP, null)).isEqualTo("ef46db3751d8e999");
    assertThat(ContentHasher.of(ChecksumType.XXHASH64)).isInstanceOf(Xxh64Hasher.class);
  }

  @ParameterizedTest
  @EnumSource(Feed.class)
  void xxh64_lengths0To200_matchZeroAllocationHashing(Feed feed) {
    Random rnd = new Random(feed.ordinal());
    boolean sawLeadingZero = false;
    for (int len = 0; len <= 200; len++) {
      byte[] data = bytes(rnd, len);
      long expected = XX.hashBytes(data);
      Xxh64Hasher h = new Xxh64Hasher(0);
      String hex = hash(h, data, feed, rnd);
      assertThat(h.value()).as("length %d", len).isEqualTo(expected);
      assertThat(hex).as("length %d", len).isEqualTo(String.format("%016x", expected));
      sawLeadingZero |= hex.charAt(0) == '0';
    }
    assertThat(sawLeadingZero).as("some hash had a leading zero nibble, so padding was exercised").isTrue();
  }

  @ParameterizedTest
  @EnumSource(value = Feed.class, names = {"WHOLE_HEAP", "WHOLE_DIRECT", "RANDOM_HEAP", "RANDOM_DIRECT",
      "RANDOM_MIXED_OFFSET"})
  void xxh64_largeRandomInputs_matchZeroAllocationHashing(Feed feed) {
    Random rnd = new Random(1000 + feed.ordinal());
    for (int len : new int[] {1 << 20, 100_003, 65_536 + 31, 4097}) {
      byte[] data = bytes(rnd, len);
      Xxh64Hasher h = new Xxh64Hasher(0);
      hash(h, data, feed, rnd);
      assertThat(h.value()).as("length %d", len).isEqualTo(XX.hashBytes(data));
    }
  }

  @Test
  void xxh64_largeInputInOneBytePieces_matches() {
    byte[] data = bytes(new Random(7), 10_000);
    Xxh64Hasher h = new Xxh64Hasher(0);
    hash(h, data, Feed.ONE_BYTE_DIRECT, null);
    assertThat(h.value()).isEqualTo(XX.hashBytes(data));
  }

  @Test
  void xxh64_nonZeroSeed_matches() {
    byte[] data = bytes(new Random(3), 123);
    Xxh64Hasher h = new Xxh64Hasher(0x1234_5678_9abcL);
    hash(h, data, Feed.RANDOM_HEAP, new Random(4));
    assertThat(h.value()).isEqualTo(LongHashFunction.xx(0x1234_5678_9abcL).hashBytes(data));
  }

  // ---------------------------------------------------------------- jdk-backed

  @ParameterizedTest
  @EnumSource(Feed.class)
  void md5AndSha256_matchMessageDigest(Feed feed) throws Exception {
    Random rnd = new Random(feed.ordinal());
    for (int len : new int[] {0, 1, 55, 56, 64, 200, 70_001}) {
      byte[] data = bytes(rnd, len);
      assertThat(hash(ContentHasher.of(ChecksumType.MD5), data, feed, rnd))
          .isEqualTo(HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(data)));
      assertThat(hash(ContentHasher.of(ChecksumType.SHA256), data, feed, rnd))
          .isEqualTo(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data)));
    }
  }

  @Test
  void md5_knownVector() {
    assertThat(hash(ContentHasher.of(ChecksumType.MD5), "abc".getBytes(StandardCharsets.US_ASCII), Feed.WHOLE_HEAP,
        null)).isEqualTo("900150983cd24fb0d6963f7d28e17f72");
  }

  @ParameterizedTest
  @EnumSource(Feed.class)
  void crc32c_matchesJdkAsEightLowercaseHexDigits(Feed feed) {
    Random rnd = new Random(feed.ordinal());
    for (int len = 0; len <= 200; len += 7) {
      byte[] data = bytes(rnd, len);
      CRC32C crc = new CRC32C();
      crc.update(data);
      assertThat(hash(ContentHasher.of(ChecksumType.CRC32C), data, feed, rnd))
          .as("length %d", len).isEqualTo(String.format("%08x", crc.getValue()));
    }
  }

  @Test
  void crc32c_smallValue_isZeroPadded() {
    // Find an input whose CRC-32C is below 0x10000000, so its hex needs padding.
    for (int i = 0; ; i++) {
      byte[] data = ("input-" + i).getBytes(StandardCharsets.US_ASCII);
      CRC32C crc = new CRC32C();
      crc.update(data);
      if (crc.getValue() < 0x1000_0000L) {
        String hex = hash(ContentHasher.of(ChecksumType.CRC32C), data, Feed.WHOLE_HEAP, null);
        assertThat(hex).hasSize(8).startsWith("0").isEqualTo(String.format("%08x", crc.getValue()));
        return;
      }
    }
  }

  @Test
  void crc32c_knownVector() {
    // CRC-32 and SHA-1 of "123456789" / "abc": the standard check values.
    assertThat(hash(ContentHasher.of(ChecksumType.CRC32), "123456789".getBytes(), Feed.WHOLE_HEAP, null))
        .isEqualTo("cbf43926");
    assertThat(hash(ContentHasher.of(ChecksumType.SHA1), "abc".getBytes(), Feed.WHOLE_HEAP, null))
        .isEqualTo("a9993e364706816aba3e25717850c26c9cd0d89d");
    // RFC 3720 test vector: 32 bytes of zeros.
    assertThat(hash(ContentHasher.of(ChecksumType.CRC32C), new byte[32], Feed.WHOLE_HEAP, null)).isEqualTo("8a9136aa");
    // CRC-64/NVME's catalogue check value, zero-padded to 16 digits like every 64-bit CRC.
    assertThat(hash(ContentHasher.of(ChecksumType.CRC64NVME), "123456789".getBytes(), Feed.WHOLE_HEAP, null))
        .isEqualTo("ae8b14860a799888");
  }

  // ---------------------------------------------------------------- common contract

  @ParameterizedTest
  @EnumSource(ChecksumType.class)
  void of_returnsHasherOfThatTypeWithFixedWidthHex(ChecksumType type) {
    ContentHasher h = ContentHasher.of(type);
    assertThat(h.type()).isEqualTo(type);
    int width = switch (type) {
      case XXHASH64, CRC64NVME -> 16;
      case MD5 -> 32;
      case CRC32C, CRC32 -> 8;
      case SHA256 -> 64;
      case SHA1 -> 40;
    };
    h.update(ByteBuffer.wrap(new byte[] {1, 2, 3}));
    assertThat(h.hex()).hasSize(width).matches("[0-9a-f]+");
    assertThat(2 * type.bytes()).as("the width the type declares (S3 headers are checked against it)")
        .isEqualTo(width);
  }

  @ParameterizedTest
  @EnumSource(ChecksumType.class)
  void update_leavesInputPositionAndLimitAlone(ChecksumType type) {
    byte[] data = bytes(new Random(11), 100);
    for (ByteBuffer buf : List.of(ByteBuffer.wrap(data), direct(data))) {
      buf.position(13).limit(90);
      ContentHasher h = ContentHasher.of(type);
      h.update(buf);
      assertThat(buf.position()).isEqualTo(13);
      assertThat(buf.limit()).isEqualTo(90);
      // ... and it hashed exactly the remaining bytes.
      byte[] part = java.util.Arrays.copyOfRange(data, 13, 90);
      assertThat(h.hex()).isEqualTo(hash(ContentHasher.of(type), part, Feed.WHOLE_HEAP, null));
    }
  }

  @ParameterizedTest
  @EnumSource(ChecksumType.class)
  void update_sameBufferTwice_hashesItTwice(ChecksumType type) {
    // PutOperation hands one nio buffer to several hashers, then writes it; none may consume it.
    byte[] data = bytes(new Random(12), 50);
    ByteBuffer buf = direct(data);
    ContentHasher h = ContentHasher.of(type);
    h.update(buf);
    h.update(buf);
    byte[] twice = new byte[100];
    System.arraycopy(data, 0, twice, 0, 50);
    System.arraycopy(data, 0, twice, 50, 50);
    assertThat(h.hex()).isEqualTo(hash(ContentHasher.of(type), twice, Feed.WHOLE_HEAP, null));
  }

  // ---------------------------------------------------------------- helpers

  private static byte[] bytes(Random rnd, int len) {
    byte[] b = new byte[len];
    rnd.nextBytes(b);
    return b;
  }

  private static ByteBuffer direct(byte[] data) {
    ByteBuffer b = ByteBuffer.allocateDirect(data.length);
    b.put(data).flip();
    return b;
  }

  /** A heap buffer whose backing array has data before and after the piece (non-zero array offset). */
  private static ByteBuffer offsetHeap(byte[] piece) {
    byte[] backing = new byte[piece.length + 10];
    java.util.Arrays.fill(backing, (byte) 0x5a);
    System.arraycopy(piece, 0, backing, 7, piece.length);
    return ByteBuffer.wrap(backing, 7, piece.length).slice();
  }

  private static String hash(ContentHasher h, byte[] data, Feed feed, Random rnd) {
    Function<byte[], ByteBuffer> heap = ByteBuffer::wrap;
    Function<byte[], ByteBuffer> dir = ContentHasherTest::direct;
    switch (feed) {
      case WHOLE_HEAP -> h.update(ByteBuffer.wrap(data));
      case WHOLE_DIRECT -> h.update(direct(data));
      case ONE_BYTE_HEAP -> pieces(data, ones(data.length)).forEach(p -> h.update(heap.apply(p)));
      case ONE_BYTE_DIRECT -> pieces(data, ones(data.length)).forEach(p -> h.update(dir.apply(p)));
      case RANDOM_HEAP -> pieces(data, random(rnd, data.length)).forEach(p -> h.update(heap.apply(p)));
      case RANDOM_DIRECT -> pieces(data, random(rnd, data.length)).forEach(p -> h.update(dir.apply(p)));
      case RANDOM_MIXED_OFFSET -> {
        int i = 0;
        for (byte[] p : pieces(data, random(rnd, data.length))) {
          h.update(i++ % 2 == 0 ? offsetHeap(p) : direct(p));
        }
      }
    }
    return h.hex();
  }

  private static int[] ones(int n) {
    int[] s = new int[n];
    java.util.Arrays.fill(s, 1);
    return s;
  }

  /** Random piece sizes summing to n: mostly small (around the 32-byte stripe), some empty, a few large. */
  private static int[] random(Random rnd, int n) {
    List<Integer> sizes = new ArrayList<>();
    int left = n;
    while (left > 0) {
      int s = switch (rnd.nextInt(4)) {
        case 0 -> 0;
        case 1 -> 1 + rnd.nextInt(8);
        case 2 -> 1 + rnd.nextInt(70);
        default -> 1 + rnd.nextInt(Math.max(1, n / 3));
      };
      s = Math.min(s, left);
      sizes.add(s);
      left -= s;
    }
    return sizes.stream().mapToInt(Integer::intValue).toArray();
  }

  private static List<byte[]> pieces(byte[] data, int[] sizes) {
    List<byte[]> out = new ArrayList<>();
    int at = 0;
    for (int s : sizes) {
      out.add(java.util.Arrays.copyOfRange(data, at, at + s));
      at += s;
    }
    return out;
  }
}
