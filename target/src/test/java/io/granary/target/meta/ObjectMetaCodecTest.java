package io.granary.target.meta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.clustermap.acl.CannedAcl;
import io.granary.clustermap.bucket.ChecksumType;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

class ObjectMetaCodecTest {

  @ParameterizedTest
  @EnumSource(ChecksumType.class)
  void decode_ofEncode_isIdentity_forEveryChecksumType(ChecksumType type) throws IOException {
    ObjectMeta m = new ObjectMeta(2L << 30, type, "0123456789abcdef".repeat(4), 1_790_000_000_123L);
    assertThat(ObjectMetaCodec.decode(ObjectMetaCodec.encode(m))).isEqualTo(m);
  }

  @Test
  void decode_ofEncode_keepsS3Fields() throws IOException {
    ObjectMeta m = new ObjectMeta(10, ChecksumType.XXHASH64, "00ff", 5, "d41d8cd98f00b204e9800998ecf8427e-3",
        "image/jpeg; charset=ünï", Map.of("origin", "camera 7", "label", "日本"));
    ObjectMeta back = ObjectMetaCodec.decode(ObjectMetaCodec.encode(m));
    assertThat(back).isEqualTo(m);
    assertThat(back.effectiveEtag()).isEqualTo("d41d8cd98f00b204e9800998ecf8427e-3");
  }

  @Test
  void decode_ofEncode_keepsStoredHeadersAndPartSizes() throws IOException {
    ObjectMeta m = new ObjectMeta(11, ChecksumType.MD5, "ab", 5, "e-2", null, Map.of(),
        Map.of("cache-control", "max-age=60", "content-disposition", "attachment; filename=\"ü.bin\""),
        List.of(8L, 3L));
    assertThat(ObjectMetaCodec.decode(ObjectMetaCodec.encode(m))).isEqualTo(m);
  }

  @Test
  void decode_ofEncode_keepsTheRemoteVersionOfACachedCopy() throws IOException {
    ObjectMeta m = new ObjectMeta(12, ChecksumType.XXHASH64, "0a0b", 9, "9e107d9d372bb6826bd81d3542a419d6", null,
        Map.of(), Map.of(), List.of(), new RemoteVersion("9e107d9d372bb6826bd81d3542a419d6", "1700000000123", 77));
    assertThat(ObjectMetaCodec.decode(ObjectMetaCodec.encode(m))).isEqualTo(m);
    ObjectMeta noVersion = m.withRemote(new RemoteVersion(null, null, 0));
    assertThat(ObjectMetaCodec.decode(ObjectMetaCodec.encode(noVersion))).isEqualTo(noVersion);
    ObjectMeta local = new ObjectMeta(1, ChecksumType.MD5, "ff", 1);
    assertThat(ObjectMetaCodec.decode(ObjectMetaCodec.encode(local)).remote()).isNull();
  }

  @Test
  void decode_readsFormatVersionTwoRecords() throws IOException {
    // version 2: version 1's fields with a UTF checksum, then flags, etag, content type and user metadata
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(2);
      out.writeLong(42);
      out.writeLong(7);
      out.writeByte(2);
      out.writeUTF("abcd");
      out.writeByte(3);
      out.writeUTF("etag-1");
      out.writeUTF("text/plain");
      out.writeShort(1);
      out.writeUTF("k");
      out.writeUTF("v");
    }
    assertThat(ObjectMetaCodec.decode(bytes.toByteArray()))
        .isEqualTo(new ObjectMeta(42, ChecksumType.MD5, "abcd", 7, "etag-1", "text/plain", Map.of("k", "v")));
  }

  @Test
  void decode_readsFormatVersionOneRecords() throws IOException {
    // version 1: version, size, mtime, type code, 1-byte length + ASCII checksum
    java.nio.ByteBuffer v1 = java.nio.ByteBuffer.allocate(1 + 8 + 8 + 1 + 1 + 4)
        .put((byte) 1).putLong(42).putLong(7).put((byte) 2).put((byte) 4).put("abcd".getBytes());
    ObjectMeta m = ObjectMetaCodec.decode(v1.array());
    assertThat(m).isEqualTo(new ObjectMeta(42, ChecksumType.MD5, "abcd", 7));
    assertThat(m.effectiveEtag()).isEqualTo("abcd");
  }

  @Test
  void encode_writesFormatVersionFour_forAPrivateObject_andFive_forAPublicReadOne() {
    ObjectMeta m = new ObjectMeta(0, ChecksumType.XXHASH64, "00", 0);
    assertThat(ObjectMetaCodec.encode(m)[0]).isEqualTo((byte) 4);
    assertThat(ObjectMetaCodec.encode(m.withAcl(CannedAcl.PUBLIC_READ))[0]).isEqualTo((byte) 5);
  }

  @Test
  void decode_ofEncode_keepsTheCannedAcl() throws IOException {
    ObjectMeta m = new ObjectMeta(3, ChecksumType.MD5, "ab", 5, "e", null, Map.of(), Map.of(), List.of(),
        new RemoteVersion("e", null, 1), CannedAcl.PUBLIC_READ);
    assertThat(ObjectMetaCodec.decode(ObjectMetaCodec.encode(m))).isEqualTo(m);
    ObjectMeta priv = m.withAcl(CannedAcl.PRIVATE);
    assertThat(ObjectMetaCodec.decode(ObjectMetaCodec.encode(priv)).acl()).isEqualTo(CannedAcl.PRIVATE);
  }

  @Test
  void decode_readsFormatVersionFourRecords_asPrivate() throws IOException {
    ObjectMeta m = new ObjectMeta(3, ChecksumType.MD5, "ab", 5, "e", "t", Map.of("k", "v"), Map.of(), List.of(2L));
    byte[] v5 = ObjectMetaCodec.encode(m.withAcl(CannedAcl.PUBLIC_READ));
    byte[] v4 = Arrays.copyOf(v5, v5.length - 1); // v4 is v5 without the trailing ACL byte
    v4[0] = 4;
    ObjectMeta back = ObjectMetaCodec.decode(v4);
    assertThat(back).isEqualTo(m);
    assertThat(back.acl()).isEqualTo(CannedAcl.PRIVATE);
  }

  @Test
  void decode_truncatedOrUnknown_throwsIOException() {
    byte[] good = ObjectMetaCodec.encode(new ObjectMeta(5, ChecksumType.MD5, "ab", 7, "e", "t", Map.of("k", "v"),
        Map.of("expires", "0"), List.of(5L)));
    for (int cut = 1; cut < good.length; cut++) {
      int n = cut;
      assertThatThrownBy(() -> ObjectMetaCodec.decode(Arrays.copyOf(good, n))).isInstanceOf(IOException.class);
    }
    byte[] future = good.clone();
    future[0] = 9;
    assertThatThrownBy(() -> ObjectMetaCodec.decode(future)).hasMessageContaining("version 9");
    byte[] badType = good.clone();
    badType[17] = 42;
    assertThatThrownBy(() -> ObjectMetaCodec.decode(badType)).hasMessageContaining("type code 42");
  }

  @ParameterizedTest
  @EnumSource(value = ChecksumType.class, names = {"CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256"})
  void decode_ofEncode_keepsTheFlexibleChecksum_inFormatSix(ChecksumType type) throws IOException {
    ObjectMeta m = new ObjectMeta(3, ChecksumType.XXHASH64, "ab", 5, "e", null, Map.of(), Map.of(), List.of(1L, 2L),
        null, CannedAcl.PRIVATE, new FlexibleChecksum(type, "00".repeat(type.bytes()), FlexibleChecksum.Kind.COMPOSITE));
    byte[] encoded = ObjectMetaCodec.encode(m);
    assertThat(encoded[0]).isEqualTo((byte) 6);
    assertThat(ObjectMetaCodec.decode(encoded)).isEqualTo(m);
    ObjectMeta full = m.withFlexible(FlexibleChecksum.fullObject(type, "0a".repeat(type.bytes())))
        .withAcl(CannedAcl.PUBLIC_READ);
    assertThat(ObjectMetaCodec.decode(ObjectMetaCodec.encode(full))).isEqualTo(full);
  }

  @Test
  void encode_withoutAFlexibleChecksum_keepsWritingFormatFourOrFive_whichDecodeWithNone() throws IOException {
    ObjectMeta m = new ObjectMeta(3, ChecksumType.MD5, "ab", 5, "e", "t", Map.of("k", "v"), Map.of(), List.of(2L));
    ObjectMeta back = ObjectMetaCodec.decode(ObjectMetaCodec.encode(m));
    assertThat(back.flexible()).isNull();
    assertThat(ObjectMetaCodec.encode(m.withAcl(CannedAcl.PUBLIC_READ))[0]).isEqualTo((byte) 5);
    assertThat(ObjectMetaCodec.decode(ObjectMetaCodec.encode(m.withAcl(CannedAcl.PUBLIC_READ))).flexible()).isNull();
  }

  @Test
  void decode_formatSix_truncatedOrWithAnUnknownKind_throwsIOException() {
    byte[] good = ObjectMetaCodec.encode(new ObjectMeta(5, ChecksumType.MD5, "ab", 7).withFlexible(
        FlexibleChecksum.fullObject(ChecksumType.CRC32, "0badf00d")));
    for (int cut = 1; cut < good.length; cut++) {
      int n = cut;
      assertThatThrownBy(() -> ObjectMetaCodec.decode(Arrays.copyOf(good, n))).isInstanceOf(IOException.class);
    }
    byte[] badKind = good.clone();
    badKind[good.length - 2 - 8 - 1] = 7; // the kind byte, before the hex string's 2-byte length and 8 digits
    assertThatThrownBy(() -> ObjectMetaCodec.decode(badKind)).hasMessageContaining("kind");
  }

  @ParameterizedTest
  @EnumSource(value = ChecksumType.class, names = {"CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256"})
  void decode_ofEncode_keepsThePartChecksums_inFormatSeven(ChecksumType type) throws IOException {
    List<String> parts = List.of("01".repeat(type.bytes()), "fe".repeat(type.bytes()), "7a".repeat(type.bytes()));
    ObjectMeta m = new ObjectMeta(3, ChecksumType.XXHASH64, "ab", 5, "e-3", null, Map.of(), Map.of(),
        List.of(1L, 1L, 1L), null, CannedAcl.PRIVATE,
        new FlexibleChecksum(type, "00".repeat(type.bytes()), FlexibleChecksum.Kind.COMPOSITE, parts));
    byte[] encoded = ObjectMetaCodec.encode(m);
    assertThat(encoded[0]).isEqualTo((byte) 7);
    ObjectMeta back = ObjectMetaCodec.decode(encoded);
    assertThat(back).isEqualTo(m);
    assertThat(back.flexible().parts()).isEqualTo(parts);
    // the same record without part checksums is still format 6, read back with none
    byte[] six = ObjectMetaCodec.encode(m.withFlexible(m.flexible().withParts(List.of())));
    assertThat(six[0]).isEqualTo((byte) 6);
    assertThat(ObjectMetaCodec.decode(six).flexible().parts()).isEmpty();
    // format 7 is format 6 and the part checksums after it
    assertThat(Arrays.copyOfRange(six, 1, six.length)).isEqualTo(Arrays.copyOfRange(encoded, 1, six.length));
    assertThat(six).hasSize(encoded.length - 5 - 3 * type.bytes());
  }

  @Test
  void decode_formatSeven_truncatedOrWithABadCount_throwsIOException() {
    byte[] good = ObjectMetaCodec.encode(new ObjectMeta(5, ChecksumType.MD5, "ab", 7).withFlexible(
        new FlexibleChecksum(ChecksumType.CRC32C, "0badf00d", FlexibleChecksum.Kind.COMPOSITE,
            List.of("00000001", "00000002"))));
    for (int cut = 1; cut < good.length; cut++) {
      int n = cut;
      assertThatThrownBy(() -> ObjectMetaCodec.decode(Arrays.copyOf(good, n))).isInstanceOf(IOException.class);
    }
    byte[] badCount = good.clone();
    badCount[good.length - 2 * 4 - 1 - 4] = (byte) 0x80; // the count's high byte: negative
    assertThatThrownBy(() -> ObjectMetaCodec.decode(badCount)).hasMessageContaining("part checksums");
  }

  @Test
  void flexibleChecksum_partWireValue_isThatPartsBase64_orNullWhenNotKept() {
    FlexibleChecksum c = new FlexibleChecksum(ChecksumType.CRC32, "0badf00d", FlexibleChecksum.Kind.COMPOSITE,
        List.of("0BADF00D", "00000001"));
    assertThat(c.parts()).containsExactly("0badf00d", "00000001");
    assertThat(c.partWireValue(1)).isEqualTo("C63wDQ==");
    assertThat(c.partWireValue(2)).isEqualTo("AAAAAQ==");
    assertThat(c.partWireValue(3)).isNull();
    assertThat(c.partWireValue(0)).isNull();
    assertThat(c.withParts(List.of()).partWireValue(1)).isNull();
  }

  @Test
  void flexibleChecksum_wireValue_isBase64_andCompositeOnesCountTheirParts() {
    FlexibleChecksum crc = FlexibleChecksum.fullObject(ChecksumType.CRC32, "0BADF00D");
    assertThat(crc.hex()).isEqualTo("0badf00d");
    assertThat(crc.wireValue(3)).isEqualTo("C63wDQ==");
    assertThat(new FlexibleChecksum(ChecksumType.CRC32, "0badf00d", FlexibleChecksum.Kind.COMPOSITE).wireValue(3))
        .isEqualTo("C63wDQ==-3");
    assertThat(crc.header()).isEqualTo("x-amz-checksum-crc32");
    assertThatThrownBy(() -> FlexibleChecksum.fullObject(ChecksumType.MD5, "00"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void decode_ofEncode_keepsTheMirrorCopies_inFormatEight() throws IOException {
    ObjectMeta one = new ObjectMeta(5, ChecksumType.XXHASH64, "ab", 7);
    ObjectMeta two = one.withCopies(List.of("/data/mp2"));
    byte[] encoded = ObjectMetaCodec.encode(two);
    assertThat(encoded[0]).isEqualTo((byte) 8);
    ObjectMeta back = ObjectMetaCodec.decode(encoded);
    assertThat(back).isEqualTo(two);
    assertThat(back.copyCount()).isEqualTo(2);
    // one copy keeps the format it had, so a target of an older release still reads it in a rebalance
    assertThat(ObjectMetaCodec.encode(one)[0]).isEqualTo((byte) 4);
    assertThat(ObjectMetaCodec.decode(ObjectMetaCodec.encode(one)).copyCount()).isEqualTo(1);
  }

  @ParameterizedTest
  @EnumSource(value = ChecksumType.class, names = {"CRC32C", "SHA256"})
  void decode_ofEncode_formatEight_keepsAclFlexibleAndPartChecksums(ChecksumType type) throws IOException {
    List<String> parts = List.of("01".repeat(type.bytes()), "fe".repeat(type.bytes()));
    FlexibleChecksum full = new FlexibleChecksum(type, "00".repeat(type.bytes()), FlexibleChecksum.Kind.COMPOSITE,
        parts);
    ObjectMeta base = new ObjectMeta(3, ChecksumType.XXHASH64, "ab", 5, "e-2", "text/plain", Map.of("k", "v"),
        Map.of(), List.of(1L, 2L), new RemoteVersion("etag", null, 9), CannedAcl.PUBLIC_READ, null,
        List.of("/m/2", "/m/3"));
    for (ObjectMeta m : List.of(base, base.withFlexible(full), base.withFlexible(full.withParts(List.of())))) {
      byte[] encoded = ObjectMetaCodec.encode(m);
      assertThat(encoded[0]).isEqualTo((byte) 8);
      assertThat(ObjectMetaCodec.decode(encoded)).isEqualTo(m);
    }
  }

  @Test
  void decode_formatEight_truncatedOrWithBadFlags_throwsIOException() {
    byte[] good = ObjectMetaCodec.encode(new ObjectMeta(5, ChecksumType.MD5, "ab", 7)
        .withCopies(List.of("/data/mp2", "/data/mp3")));
    for (int cut = 1; cut < good.length; cut++) {
      int n = cut;
      assertThatThrownBy(() -> ObjectMetaCodec.decode(Arrays.copyOf(good, n))).isInstanceOf(IOException.class);
    }
    byte[] noCopies = good.clone();
    int count = good.length - 2 * (2 + "/data/mp2".length()) - 2; // the copy count, before the two ids
    noCopies[count] = 0;
    noCopies[count + 1] = 0;
    assertThatThrownBy(() -> ObjectMetaCodec.decode(noCopies)).hasMessageContaining("mirror copies");
    byte[] badFlags = good.clone();
    badFlags[count - 1] = 4;
    assertThatThrownBy(() -> ObjectMetaCodec.decode(badFlags)).hasMessageContaining("flags");
  }

  @Test
  void objectMeta_copiesOnTheSameMountpathTwice_refused() {
    ObjectMeta m = new ObjectMeta(5, ChecksumType.MD5, "ab", 7);
    assertThatThrownBy(() -> m.withCopies(List.of("/a", "/a"))).isInstanceOf(IllegalArgumentException.class);
  }
}
