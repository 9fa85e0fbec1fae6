package io.granary.loader.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ContentTest {
  @Test
  void fill_atAnyOffset_equalsTheWholeObjectSliced() {
    long seed = Content.objectSeed(7, "a/b");
    byte[] whole = new byte[1000];
    Content.fill(seed, 0, whole, 0, whole.length);
    for (int off : new int[] {1, 3, 7, 8, 9, 500, 999}) {
      byte[] part = new byte[1000 - off + 5];
      Content.fill(seed, off, part, 5, 1000 - off);
      assertThat(Arrays.copyOfRange(part, 5, part.length)).isEqualTo(Arrays.copyOfRange(whole, off, 1000));
    }
  }

  @Test
  void stream_isTheObject_andDiffersByNameAndSeed() throws Exception {
    long seed = Content.objectSeed(7, "a/b");
    byte[] whole = new byte[70_001];
    Content.fill(seed, 0, whole, 0, whole.length);
    try (InputStream in = Content.stream(seed, whole.length)) {
      assertThat(in.readAllBytes()).isEqualTo(whole);
    }
    assertThat(Content.objectSeed(7, "a/c")).isNotEqualTo(seed);
    assertThat(Content.objectSeed(8, "a/b")).isNotEqualTo(seed);
  }

  @Test
  void matches_detectsOneFlippedBit() {
    long seed = 99;
    byte[] data = new byte[100_000];
    Content.fill(seed, 10, data, 0, data.length);
    byte[] scratch = new byte[4096];
    assertThat(Content.matches(seed, 10, data, 0, data.length, scratch)).isTrue();
    data[77_777] ^= 0x10;
    assertThat(Content.matches(seed, 10, data, 0, data.length, scratch)).isFalse();
  }
}
