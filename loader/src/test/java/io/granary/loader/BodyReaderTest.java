package io.granary.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.loader.workload.Content;
import io.granary.loader.workload.NamePool;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class BodyReaderTest {
  private static final long SEED = 42;

  private static byte[] content(String name, int size) throws IOException {
    return Content.stream(Content.objectSeed(SEED, name), size).readAllBytes();
  }

  @Test
  void read_ownObject_verifiedByteForByte() throws Exception {
    BodyReader r = new BodyReader(true, SEED);
    byte[] body = content("loader-0/w000-000000001", 300_000);
    assertThat(r.read(new ByteArrayInputStream(body), null, new NamePool.Entry("loader-0/w000-000000001", 300_000)))
        .isEqualTo(300_000);
    assertThat(r.verified()).isTrue();
  }

  @Test
  void read_ownObject_flippedByte_orShort_fails() throws Exception {
    BodyReader r = new BodyReader(true, SEED);
    byte[] body = content("x", 200_000);
    body[150_000] ^= 1;
    assertThatThrownBy(() -> r.read(new ByteArrayInputStream(body), null, new NamePool.Entry("x", 200_000)))
        .hasMessageContaining("content differs");
    byte[] whole = content("x", 200_000);
    assertThatThrownBy(() -> r.read(new ByteArrayInputStream(whole, 0, 199_999), null,
        new NamePool.Entry("x", 200_000))).hasMessageContaining("199999 bytes, PUT 200000");
  }

  @Test
  void read_foreignObject_checkedAgainstMd5Etag_otherEtagsNotVerified() throws Exception {
    BodyReader r = new BodyReader(true, SEED);
    byte[] body = "hello world".getBytes();
    String md5 = HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(body));
    NamePool.Entry foreign = new NamePool.Entry("f", -1);
    r.read(new ByteArrayInputStream(body), md5, foreign);
    assertThat(r.verified()).isTrue();
    assertThatThrownBy(() -> r.read(new ByteArrayInputStream("hello worle".getBytes()), md5, foreign))
        .hasMessageContaining("MD5");
    r.read(new ByteArrayInputStream(body), "9a1c00ff9a1c00ff", foreign);
    assertThat(r.verified()).isFalse();
  }

  @Test
  void read_rangeOfOwnObject_checkedAgainstThatRange_rangeOfForeignObjectNot() throws Exception {
    BodyReader r = new BodyReader(true, SEED);
    byte[] whole = content("r", 100_000);
    NamePool.Entry own = new NamePool.Entry("r", 100_000);
    assertThat(r.read(new ByteArrayInputStream(whole, 1000, 4096), null, own, 1000, 4096)).isEqualTo(4096);
    assertThat(r.verified()).isTrue();
    assertThat(r.read(new ByteArrayInputStream(whole, 99_000, 1000), null, own, 99_000, 0)).as("to the end")
        .isEqualTo(1000);
    assertThat(r.read(new ByteArrayInputStream(whole, 99_000, 1000), null, own, 99_000, 5000)).as("past the end")
        .isEqualTo(1000);
    assertThatThrownBy(() -> r.read(new ByteArrayInputStream(whole, 1001, 4096), null, own, 1000, 4096))
        .hasMessageContaining("content differs from what was PUT, within bytes 1000-");
    assertThatThrownBy(() -> r.read(new ByteArrayInputStream(whole, 1000, 10), null, own, 1000, 4096))
        .hasMessageContaining("10 bytes of a range of 4096");
    byte[] body = "hello world".getBytes();
    String md5 = HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(body));
    r.read(new ByteArrayInputStream(body, 0, 5), md5, new NamePool.Entry("f", -1), 0, 5);
    assertThat(r.verified()).as("an ETag covers the whole object").isFalse();
  }

  @Test
  void read_withoutVerify_onlyCounts() throws Exception {
    BodyReader r = new BodyReader(false, SEED);
    assertThat(r.read(new ByteArrayInputStream(new byte[12345]), null, new NamePool.Entry("x", 1))).isEqualTo(12345);
    assertThat(r.verified()).isFalse();
  }
}
