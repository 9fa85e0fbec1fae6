package io.granary.ec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link StripeEncoder} and {@link StripeDecoder}: objects through shard channels and back. */
class StripeCodingTest {
  private static final int CELL = 64;
  private static final int D = 4;
  private static final int P = 2;
  private static final int STRIPE = D * CELL;

  private final ReedSolomon rs = ReedSolomon.of(D, P);

  @ParameterizedTest(name = "{0} bytes")
  @ValueSource(ints = {0, 1, CELL - 1, CELL, CELL + 1, STRIPE - 1, STRIPE, STRIPE + 1, 3 * STRIPE + 77})
  void roundTrip_allShards_returnsExactBytes(int size) throws IOException {
    byte[] object = object(size);
    byte[][] shards = encode(object);

    for (byte[] shard : shards) {
      assertThat(shard).hasSize((int) new StripeLayout(D, CELL, size).shardSize());
    }
    assertThat(decode(shards, size)).isEqualTo(object);
  }

  @ParameterizedTest(name = "{0} bytes")
  @ValueSource(ints = {1, CELL + 1, 3 * STRIPE + 77})
  void roundTrip_everyLossOfUpToPShards_returnsExactBytes(int size) throws IOException {
    byte[] object = object(size);
    byte[][] shards = encode(object);

    for (int[] lost : ReedSolomonTest.subsetsUpTo(D + P, P)) {
      byte[][] left = shards.clone();
      for (int s : lost) {
        left[s] = null;
      }
      assertThat(decode(left, size)).as("lost %s", Arrays.toString(lost)).isEqualTo(object);
    }
  }

  @Test
  void encode_dataShardsHoldTheObjectInCells_lastStripeZeroPadded() throws IOException {
    byte[] object = object(STRIPE + 6);
    byte[][] shards = encode(object);

    assertThat(Arrays.copyOf(shards[1], CELL)).isEqualTo(Arrays.copyOfRange(object, CELL, 2 * CELL));
    // Tail of 6 bytes: cells of 2 bytes, shards 0..2 carry them, shard 3 only padding.
    assertThat(Arrays.copyOfRange(shards[2], CELL, CELL + 2)).isEqualTo(Arrays.copyOfRange(object, STRIPE + 4,
        STRIPE + 6));
    assertThat(Arrays.copyOfRange(shards[3], CELL, CELL + 2)).containsOnly(0);
  }

  @Test
  void encode_matchesWholeShardCodecOnEachStripe() throws IOException {
    byte[] object = object(2 * STRIPE);
    byte[][] shards = encode(object);

    java.nio.ByteBuffer[] all = new java.nio.ByteBuffer[D + P];
    for (int s = 0; s < D + P; s++) {
      all[s] = java.nio.ByteBuffer.wrap(shards[s]);
    }
    assertThat(rs.verify(all)).isTrue();
  }

  @Test
  void decode_repairsLostShards_byteExact() throws IOException {
    int size = 5 * STRIPE + 13;
    byte[] object = object(size);
    byte[][] shards = encode(object);
    byte[][] left = shards.clone();
    left[1] = null;
    left[5] = null;
    ByteArrayOutputStream repaired1 = new ByteArrayOutputStream();
    ByteArrayOutputStream repaired5 = new ByteArrayOutputStream();
    WritableByteChannel[] repairs = new WritableByteChannel[D + P];
    repairs[1] = Channels.newChannel(repaired1);
    repairs[5] = Channels.newChannel(repaired5);
    ByteArrayOutputStream out = new ByteArrayOutputStream();

    new StripeDecoder(rs, CELL).decode(channels(left), size, Channels.newChannel(out), repairs);

    assertThat(out.toByteArray()).isEqualTo(object);
    assertThat(repaired1.toByteArray()).isEqualTo(shards[1]);
    assertThat(repaired5.toByteArray()).isEqualTo(shards[5]);
  }

  @Test
  void decode_moreThanPLost_throwsBeforeWritingAnything() throws IOException {
    byte[][] shards = encode(object(STRIPE));
    shards[0] = null;
    shards[2] = null;
    shards[4] = null;
    ByteArrayOutputStream out = new ByteArrayOutputStream();

    assertThatThrownBy(() -> new StripeDecoder(rs, CELL).decode(channels(shards), STRIPE, Channels.newChannel(out)))
        .isInstanceOf(NotEnoughShardsException.class);
    assertThat(out.size()).isZero();
  }

  @Test
  void decode_truncatedShard_throwsEof() throws IOException {
    int size = 2 * STRIPE;
    byte[][] shards = encode(object(size));
    shards[3] = Arrays.copyOf(shards[3], CELL + 5);

    assertThatThrownBy(() -> new StripeDecoder(rs, CELL).decode(channels(shards), size,
        Channels.newChannel(new ByteArrayOutputStream())))
        .isInstanceOf(EOFException.class).hasMessageContaining("shard 3 ended in stripe 1 of 2");
  }

  @Test
  void encode_nullShardChannel_throwsBeforeReading() {
    WritableByteChannel[] shards = new WritableByteChannel[D + P];
    for (int s = 0; s < D + P; s++) {
      shards[s] = s == 4 ? null : Channels.newChannel(new ByteArrayOutputStream());
    }
    ByteArrayInputStream object = new ByteArrayInputStream(object(10));

    assertThatThrownBy(() -> new StripeEncoder(rs, CELL).encode(Channels.newChannel(object), shards))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("shard channel 4 is null");
    assertThat(object.available()).isEqualTo(10);
  }

  /** FileChannels both ways, as a target uses them: object file to shard files and back, 1 MiB cells. */
  @Test
  void roundTrip_fileChannels_10plus4_bigCells(@TempDir Path dir) throws IOException {
    ReedSolomon rs10 = ReedSolomon.of(10, 4);
    int cell = 1 << 20;
    int size = 2 * 10 * cell + 12345;
    byte[] object = object(size);
    Path source = Files.write(dir.resolve("object"), object);
    FileChannel[] outs = new FileChannel[14];
    for (int s = 0; s < 14; s++) {
      outs[s] = FileChannel.open(dir.resolve("shard" + s), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    }
    long encoded;
    try (FileChannel in = FileChannel.open(source)) {
      encoded = new StripeEncoder(rs10, cell).encode(in, outs);
    }
    for (FileChannel c : outs) {
      c.close();
    }
    assertThat(encoded).isEqualTo(size);
    assertThat(Files.size(dir.resolve("shard13"))).isEqualTo(new StripeLayout(10, cell, size).shardSize());

    FileChannel[] ins = new FileChannel[14];
    for (int s = 4; s < 14; s++) { // data shards 0..3 lost: four rebuilt from parity
      ins[s] = FileChannel.open(dir.resolve("shard" + s));
    }
    Path restored = dir.resolve("restored");
    try (FileChannel out = FileChannel.open(restored, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      new StripeDecoder(rs10, cell).decode(ins, size, out);
    }
    for (int s = 4; s < 14; s++) {
      ins[s].close();
    }
    assertThat(Files.readAllBytes(restored)).isEqualTo(object);
  }

  private byte[][] encode(byte[] object) throws IOException {
    ByteArrayOutputStream[] outs = new ByteArrayOutputStream[D + P];
    WritableByteChannel[] channels = new WritableByteChannel[D + P];
    for (int s = 0; s < outs.length; s++) {
      outs[s] = new ByteArrayOutputStream();
      channels[s] = Channels.newChannel(outs[s]);
    }
    long size = new StripeEncoder(rs, CELL).encode(Channels.newChannel(new ByteArrayInputStream(object)), channels);
    assertThat(size).isEqualTo(object.length);
    byte[][] shards = new byte[D + P][];
    for (int s = 0; s < outs.length; s++) {
      shards[s] = outs[s].toByteArray();
    }
    return shards;
  }

  private byte[] decode(byte[][] shards, long size) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    new StripeDecoder(rs, CELL).decode(channels(shards), size, Channels.newChannel(out));
    return out.toByteArray();
  }

  private static ReadableByteChannel[] channels(byte[][] shards) {
    ReadableByteChannel[] channels = new ReadableByteChannel[shards.length];
    for (int s = 0; s < shards.length; s++) {
      channels[s] = shards[s] == null ? null : Channels.newChannel(new ByteArrayInputStream(shards[s]));
    }
    return channels;
  }

  private static byte[] object(int size) {
    byte[] bytes = new byte[size];
    new Random(size).nextBytes(bytes);
    return bytes;
  }
}
