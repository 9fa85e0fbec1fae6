package io.granary.ec;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Our parity and reconstructions against klauspost/reedsolomon's, from the vectors {@code bench/ec} generated
 * ({@code ecref vectors}; see {@code ec-vectors/manifest.txt}).
 */
class KlauspostVectorsTest {

  /** One manifest line: a codec, a shard length, the shards klauspost wrote, the losses it rebuilt. */
  record VectorCase(int data, int parity, int shardLength, String file, List<int[]> losses) {
    @Override
    public String toString() {
      return data + "+" + parity + " × " + shardLength + " bytes";
    }

    byte[][] shards() {
      byte[] all = resource(file);
      assertThat(all).hasSize((data + parity) * shardLength);
      byte[][] shards = new byte[data + parity][];
      for (int s = 0; s < shards.length; s++) {
        shards[s] = Arrays.copyOfRange(all, s * shardLength, (s + 1) * shardLength);
      }
      return shards;
    }
  }

  static Stream<Arguments> vectors() {
    List<Arguments> cases = new ArrayList<>();
    for (String line : new String(resource("manifest.txt"), StandardCharsets.UTF_8).split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      String[] f = line.trim().split(" ");
      List<int[]> losses = new ArrayList<>();
      for (int k = 4; k < f.length; k++) {
        losses.add(Arrays.stream(f[k].split(",")).mapToInt(Integer::parseInt).toArray());
      }
      VectorCase c = new VectorCase(Integer.parseInt(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2]), f[3],
          losses);
      cases.add(Arguments.of(c, false));
      cases.add(Arguments.of(c, true));
    }
    assertThat(cases).hasSizeGreaterThanOrEqualTo(2 * 17);
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}, direct={1}")
  @MethodSource("vectors")
  void encode_parityIsKlauspostsByteForByte(VectorCase c, boolean direct) {
    byte[][] expected = c.shards();
    ReedSolomon rs = ReedSolomon.of(c.data(), c.parity());
    ByteBuffer[] data = new ByteBuffer[c.data()];
    for (int i = 0; i < data.length; i++) {
      data[i] = Shards.wrap(expected[i], direct);
    }
    ByteBuffer[] parity = Shards.empty(c.parity(), c.shardLength(), direct);

    rs.encode(data, parity);

    for (int p = 0; p < c.parity(); p++) {
      assertThat(Shards.bytes(parity[p])).as("parity shard %d", p).isEqualTo(expected[c.data() + p]);
    }
  }

  @ParameterizedTest(name = "{0}, direct={1}")
  @MethodSource("vectors")
  void reconstruct_klauspostsLossPatterns_giveItsShards(VectorCase c, boolean direct) {
    byte[][] expected = c.shards();
    ReedSolomon rs = ReedSolomon.of(c.data(), c.parity());
    for (int[] lost : c.losses()) {
      ByteBuffer[] shards = new ByteBuffer[expected.length];
      for (int s = 0; s < shards.length; s++) {
        shards[s] = Shards.wrap(expected[s], direct);
      }
      for (int s : lost) {
        shards[s] = null;
      }

      rs.reconstruct(shards);

      for (int s = 0; s < shards.length; s++) {
        assertThat(Shards.bytes(shards[s])).as("shard %d, lost %s", s, Arrays.toString(lost))
            .isEqualTo(expected[s]);
      }
    }
  }

  private static byte[] resource(String name) {
    try (InputStream in = KlauspostVectorsTest.class.getResourceAsStream("/ec-vectors/" + name)) {
      assertThat(in).as("test resource ec-vectors/%s", name).isNotNull();
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
