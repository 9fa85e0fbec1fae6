package io.granary.common.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class S3NamesTest {

  @ParameterizedTest
  @ValueSource(strings = {"abc", "my-bucket", "my.bucket.name", "a1b", "123", "bucket-2026.data",
      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"})
  void validBuckets(String name) {
    assertThat(S3Names.bucketProblem(name)).isNull();
  }

  @Test
  void invalidBuckets_sayWhy() {
    assertThat(S3Names.bucketProblem(null)).contains("3 to 63");
    assertThat(S3Names.bucketProblem("ab")).contains("3 to 63");
    assertThat(S3Names.bucketProblem("a".repeat(64))).contains("3 to 63");
    assertThat(S3Names.bucketProblem("My-Bucket")).contains("lowercase");
    assertThat(S3Names.bucketProblem("my_bucket")).contains("lowercase"); // BucketName allows it for GCS; S3 does not
    assertThat(S3Names.bucketProblem("-bucket")).contains("start and end");
    assertThat(S3Names.bucketProblem("bucket.")).contains("start and end");
    assertThat(S3Names.bucketProblem("my..bucket")).contains("adjacent periods");
    assertThat(S3Names.bucketProblem("192.168.5.4")).contains("IP address");
    assertThat(S3Names.bucketProblem("xn--bucket")).contains("prefix 'xn--'");
    assertThat(S3Names.bucketProblem("sthree-bucket")).contains("prefix");
    assertThat(S3Names.bucketProblem("bucket-s3alias")).contains("suffix '-s3alias'");
    assertThat(S3Names.bucketProblem("bucket--ol-s3")).contains("suffix");
  }

  @Test
  void keys_upTo1024Utf8Bytes() {
    assertThat(S3Names.keyProblem("a")).isNull();
    assertThat(S3Names.keyProblem("a".repeat(1024))).isNull();
    assertThat(S3Names.keyProblem("\u00e9".repeat(512))).isNull(); // 2 bytes each
    assertThat(S3Names.keyProblem("\ud83d\ude00".repeat(256))).isNull(); // 4 bytes each
    assertThat(S3Names.keyProblem("/leading/./and/../dots")).isNull(); // S3 allows them; ObjectName decides for storage
    assertThat(S3Names.keyProblem("ctl\u0001\r\n")).isNull();
  }

  @Test
  void keys_invalid() {
    assertThat(S3Names.keyProblem(null)).contains("empty");
    assertThat(S3Names.keyProblem("")).contains("empty");
    assertThat(S3Names.keyProblem("a".repeat(1025))).contains("1025 bytes");
    assertThat(S3Names.keyProblem("\u00e9".repeat(513))).contains("1026 bytes");
    assertThat(S3Names.keyProblem("\u65e5".repeat(342))).contains("1026 bytes");
    assertThat(S3Names.keyProblem("bad\ud800")).contains("UTF-8");
    assertThat(S3Names.keyProblem("\udc00bad")).contains("UTF-8");
  }

  @Test
  void requireValidKey_tooLong_isKeyTooLongError() {
    assertThatThrownBy(() -> S3Names.requireValidKey("k".repeat(2000)))
        .isInstanceOfSatisfying(S3ApiException.class, e -> {
          assertThat(e.code()).isEqualTo("KeyTooLongError");
          assertThat(e.status().code()).isEqualTo(400);
        });
    assertThatThrownBy(() -> S3Names.requireValidKey(""))
        .isInstanceOfSatisfying(S3ApiException.class, e -> assertThat(e.code()).isEqualTo("InvalidArgument"));
    assertThat(S3Names.requireValidKey("ok")).isEqualTo("ok");
  }
}
