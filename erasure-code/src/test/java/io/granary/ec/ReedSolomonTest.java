package io.granary.ec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ReedSolomonTest {

  @ParameterizedTest(name = "{0}+{1}")
  @CsvSource({"0, 1", "1, 0", "-1, 2", "200, 57", "257, 1"})
  void of_invalidCounts_throwIllegalArgument(int data, int parity) {
    assertThatThrownBy(() -> ReedSolomon.of(data, parity))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(data + "+" + parity)
        .hasMessageContaining("at least 1 data and 1 parity");
  }

  @Test
  void of_limits_areAccepted() {
    assertThat(ReedSolomon.of(1, 1).totalShards()).isEqualTo(2);
    assertThat(ReedSolomon.of(128, 128).totalShards()).isEqualTo(256);
    assertThat(ReedSolomon.of(255, 1).toString()).isEqualTo("ReedSolomon[255+1]");
  }

  /** Lengths around the 8-byte word and the kernel's chunk, so every path of the kernel runs. */
  @ParameterizedTest(name = "{0}+{1}, {2} bytes, direct={3}")
  @CsvSource({
      "4, 2, 0, false", "4, 2, 1, true", "4, 2, 7, false", "4, 2, 8, true", "4, 2, 9, false",
      "10, 4, 2047, true", "10, 4, 2048, false", "8, 3, 16389, true", "8, 3, 16389, false",
      "17, 5, 4099, true", "1, 1, 100, false", "3, 9, 70000, true"})
  void encode_matchesByteAtATimeDefinition(int data, int parity, int length, boolean direct) {
    ReedSolomon rs = ReedSolomon.of(data, parity);
    ByteBuffer[] dataShards = Shards.random(data, length, length * 31L + data, direct);
    ByteBuffer[] parityShards = Shards.empty(parity, length, direct);

    rs.encode(dataShards, parityShards);

    byte[][] raw = new byte[data][];
    for (int i = 0; i < data; i++) {
      raw[i] = Shards.bytes(dataShards[i]);
    }
    byte[][] expected = Shards.referenceParity(data, parity, raw);
    for (int p = 0; p < parity; p++) {
      assertThat(Shards.bytes(parityShards[p])).as("parity %d", p).isEqualTo(expected[p]);
    }
  }

  @Test
  void encode_readsAndWritesBetweenPositionAndLimit_leavingThemAsTheyAre() {
    ReedSolomon rs = ReedSolomon.of(2, 1);
    ByteBuffer a = ByteBuffer.allocate(20).position(3).limit(13);
    ByteBuffer b = ByteBuffer.allocateDirect(30).position(17).limit(27);
    for (int j = 0; j < 10; j++) {
      a.put(3 + j, (byte) (j + 1));
      b.put(17 + j, (byte) (40 + j));
    }
    ByteBuffer parity = ByteBuffer.allocate(16).position(5).limit(15);

    rs.encode(new ByteBuffer[] {a, b}, new ByteBuffer[] {parity});

    assertThat(List.of(a.position(), a.limit(), b.position(), b.limit(), parity.position(), parity.limit()))
        .containsExactly(3, 13, 17, 27, 5, 15);
    byte[][] expected = Shards.referenceParity(2, 1, new byte[][] {Shards.bytes(a), Shards.bytes(b)});
    assertThat(Shards.bytes(parity)).isEqualTo(expected[0]);
    assertThat(parity.get(4)).isZero();
    assertThat(parity.duplicate().clear().get(15)).isZero();
  }

  @Test
  void encode_lengthsDiffer_throwIllegalArgument() {
    ReedSolomon rs = ReedSolomon.of(2, 1);
    assertThatThrownBy(() -> rs.encode(new ByteBuffer[] {ByteBuffer.allocate(4), ByteBuffer.allocate(5)},
        new ByteBuffer[] {ByteBuffer.allocate(4)}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("differ in length");
    assertThatThrownBy(() -> rs.encode(new ByteBuffer[] {ByteBuffer.allocate(4)},
        new ByteBuffer[] {ByteBuffer.allocate(4)}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expected 2 data shards, got 1");
  }

  /** Every subset of up to P lost shards, data and parity alike, for the configurations the issue names. */
  @ParameterizedTest(name = "{0}+{1}, direct={2}")
  @CsvSource({"2, 1, false", "4, 2, true", "8, 3, false", "10, 4, true"})
  void reconstruct_everyLossPatternUpToP_isByteExact(int data, int parity, boolean direct) {
    ReedSolomon rs = ReedSolomon.of(data, parity);
    int length = 67; // eight words and a tail
    ByteBuffer[] original = new ByteBuffer[data + parity];
    System.arraycopy(Shards.random(data, length, 7, direct), 0, original, 0, data);
    System.arraycopy(Shards.empty(parity, length, direct), 0, original, data, parity);
    rs.encode(java.util.Arrays.copyOf(original, data), java.util.Arrays.copyOfRange(original, data, data + parity));

    List<int[]> patterns = subsetsUpTo(data + parity, parity);
    for (int[] lost : patterns) {
      ByteBuffer[] shards = new ByteBuffer[data + parity];
      boolean[] present = new boolean[data + parity];
      for (int s = 0; s < shards.length; s++) {
        shards[s] = Shards.wrap(Shards.bytes(original[s]), direct);
        present[s] = true;
      }
      for (int s : lost) {
        shards[s].duplicate().put(new byte[length]); // wipe it: the rebuild must not read it
        present[s] = false;
      }

      rs.reconstruct(shards, present);

      for (int s = 0; s < shards.length; s++) {
        assertThat(shards[s]).as("shard %d, lost %s", s, java.util.Arrays.toString(lost)).isEqualTo(original[s]);
      }
    }
    int expected = 0;
    for (int k = 1; k <= parity; k++) {
      expected += binomial(data + parity, k);
    }
    assertThat(patterns).hasSize(expected);
  }

  @ParameterizedTest(name = "{0}+{1}")
  @CsvSource({"2, 1", "4, 2", "8, 3", "10, 4"})
  void reconstruct_moreThanPLost_throwsNotEnoughShards(int data, int parity) {
    ReedSolomon rs = ReedSolomon.of(data, parity);
    ByteBuffer[] shards = Shards.random(data + parity, 16, 3, false);
    for (int s = 0; s <= parity; s++) {
      shards[2 * s % shards.length] = null;
    }

    assertThatThrownBy(() -> rs.reconstruct(shards))
        .isInstanceOfSatisfying(NotEnoughShardsException.class, e -> {
          assertThat(e.available()).isEqualTo(data - 1);
          assertThat(e.required()).isEqualTo(data);
        })
        .hasMessage("cannot reconstruct: %d of %d shards available, %d needed (more than %d lost)",
            data - 1, data + parity, data, parity);
  }

  @Test
  void reconstruct_moreThanPFlaggedLost_throwsNotEnoughShards_andWritesNothing() {
    ReedSolomon rs = ReedSolomon.of(4, 2);
    ByteBuffer[] shards = Shards.random(6, 16, 3, true);
    byte[] before = Shards.bytes(shards[0]);

    assertThatThrownBy(() -> rs.reconstruct(shards, new boolean[] {false, true, false, true, false, true}))
        .isInstanceOf(NotEnoughShardsException.class).hasMessageContaining("3 of 6 shards available, 4 needed");
    assertThat(Shards.bytes(shards[0])).isEqualTo(before);
  }

  @Test
  void reconstruct_nullParitySlot_isNeitherReadNorWritten() {
    ReedSolomon rs = ReedSolomon.of(4, 2);
    ByteBuffer[] shards = Shards.random(6, 40, 11, true);
    rs.encode(java.util.Arrays.copyOf(shards, 4), java.util.Arrays.copyOfRange(shards, 4, 6));
    byte[] lostData = Shards.bytes(shards[1]);
    shards[1] = ByteBuffer.allocateDirect(40);
    shards[5] = null;

    rs.reconstruct(shards, new boolean[] {true, false, true, true, true, false});

    assertThat(Shards.bytes(shards[1])).isEqualTo(lostData);
    assertThat(shards[5]).isNull();
  }

  @Test
  void reconstruct_presentSlotNull_throwsIllegalArgument() {
    ReedSolomon rs = ReedSolomon.of(2, 1);
    assertThatThrownBy(() -> rs.reconstruct(new ByteBuffer[] {null, ByteBuffer.allocate(1), ByteBuffer.allocate(1)},
        new boolean[] {true, true, true}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shard 0 is flagged present but is null");
  }

  @Test
  void verify_detectsAFlippedParityByte() {
    ReedSolomon rs = ReedSolomon.of(4, 2);
    ByteBuffer[] shards = Shards.random(6, 100, 5, false);
    rs.encode(java.util.Arrays.copyOf(shards, 4), java.util.Arrays.copyOfRange(shards, 4, 6));
    assertThat(rs.verify(shards)).isTrue();

    shards[5].put(99, (byte) (shards[5].get(99) ^ 1));

    assertThat(rs.verify(shards)).isFalse();
  }

  static List<int[]> subsetsUpTo(int n, int maxSize) {
    List<int[]> out = new ArrayList<>();
    for (int mask = 1; mask < (1 << n); mask++) {
      int size = Integer.bitCount(mask);
      if (size <= maxSize) {
        int[] subset = new int[size];
        int k = 0;
        for (int s = 0; s < n; s++) {
          if (((mask >>> s) & 1) != 0) {
            subset[k++] = s;
          }
        }
        out.add(subset);
      }
    }
    return out;
  }

  private static int binomial(int n, int k) {
    long r = 1;
    for (int i = 0; i < k; i++) {
      r = r * (n - i) / (i + 1);
    }
    return (int) r;
  }
}
