package io.granary.clustermap.bucket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class NamesTest {

  @ParameterizedTest
  @ValueSource(strings = {"a/b/c.jpg", "with space", "ünïcødé/日本語/🙂", "a//b", "trailing/", "..hidden", "a..b",
      ".x", "x."})
  void objectName_acceptsSlashesAndAnyUtf8(String name) {
    assertThat(ObjectName.requireValid(name)).isEqualTo(name);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "..", ".", "../etc/passwd", "a/../b", "a/./b", "a/..", "/etc/passwd", "nul\0byte"})
  void objectName_rejectsTraversalAndEmpty(String name) {
    assertThatThrownBy(() -> ObjectName.requireValid(name)).isInstanceOf(InvalidNameException.class);
  }

  @Test
  void objectName_limitIs1024Utf8Bytes() {
    assertThat(ObjectName.problem("x".repeat(1024))).isNull();
    assertThat(ObjectName.problem("x".repeat(1025))).contains("1024 bytes");
    assertThat(ObjectName.problem("é".repeat(513))).contains("1024 bytes"); // 1026 bytes, 513 chars
  }

  @ParameterizedTest
  @ValueSource(strings = {"abc", "my-bucket.v2", "a_b", "000"})
  void bucketName_acceptsS3Names(String name) {
    assertThat(BucketName.problem(name)).isNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "ab", "v1", "UPPER", "-abc", "abc-", "a..b", "192.168.1.1", "has space", "a/b"})
  void bucketName_rejectsInvalid(String name) {
    assertThatThrownBy(() -> BucketName.requireValid(name)).isInstanceOf(InvalidNameException.class)
        .hasMessageContaining("invalid bucket name");
  }

  @Test
  void bucketMetadata_withAndWithoutBumpVersion() {
    BucketMetadata bmd = BucketMetadata.empty("u");
    BucketProps props = new BucketProps(Bucket.local("abc"), "id1", ChecksumType.MD5, null);
    BucketMetadata with = bmd.with(props);
    assertThat(with.version()).isEqualTo(2);
    assertThat(with.get(Bucket.local("abc"))).contains(props);
    assertThat(with.without(Bucket.local("abc")).buckets()).isEmpty();
  }

  @Test
  void checksumType_parseAcceptsAliases() {
    assertThat(ChecksumType.parse("XXHASH")).isEqualTo(ChecksumType.XXHASH64);
    assertThatThrownBy(() -> ChecksumType.parse("crc64")).hasMessageContaining("xxhash64, md5");
  }
}
