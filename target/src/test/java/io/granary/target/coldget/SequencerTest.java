package io.granary.target.coldget;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.backend.RemoteChecksum;
import io.granary.backend.RemoteObject;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.common.error.ChecksumMismatchException;
import io.granary.target.checksum.ContentHasher;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pieces written in any order, from any number of threads, are published as the contiguous prefix (less the last
 * byte) at once and hashed in order, so that the verdict is the content's hash whatever the order of arrival.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SequencerTest {
  private static final int PIECE = 64 << 10;

  @TempDir
  Path dir;
  private final ExecutorService hashing = Executors.newSingleThreadExecutor();
  private final ExecutorService writers = Executors.newFixedThreadPool(4);

  @AfterEach
  void stop() {
    hashing.shutdownNow();
    writers.shutdownNow();
  }

  @Test
  void piecesWrittenInOrder_arePublishedAtOnce_andHashedInOrder() throws Exception {
    byte[] content = content(40 * PIECE + 123, 1);
    Fixture f = new Fixture(content, ChecksumType.MD5, md5(content));
    for (int off = 0; off < content.length; off += PIECE) {
      f.write(off, Math.min(PIECE, content.length - off));
      assertThat(f.fetch.available()).as("published at once, all but the last byte")
          .isEqualTo(Math.min(off + PIECE, content.length - 1));
    }
    f.seq.awaitHashed();
    assertThat(f.verifier.verify()).isEqualTo(md5(content));
  }

  @Test
  void piecesBeyondTheContiguousPrefix_waitUnpublished_andAreHashedInOrder() throws Exception {
    byte[] content = content(16 * PIECE, 2);
    Fixture f = new Fixture(content, ChecksumType.MD5, md5(content));
    for (int off = content.length - PIECE; off >= 0; off -= PIECE) { // last piece first
      f.write(off, PIECE);
      assertThat(f.fetch.available()).isEqualTo(off == 0 ? content.length - 1 : 0);
    }
    f.seq.awaitHashed();
    assertThat(f.seq.complete()).isTrue();
    assertThat(f.verifier.verify()).isEqualTo(md5(content));
  }

  @Test
  void concurrentWritersInRandomOrder_produceTheContentsHash_everyTime() throws Exception {
    for (int round = 0; round < 30; round++) {
      byte[] content = content(64 * PIECE + round, 100 + round);
      // Two hashers read each buffer: the bucket's xxhash64 and the remote's MD5.
      Fixture f = new Fixture(content, ChecksumType.XXHASH64, md5(content));
      List<Integer> offsets = new ArrayList<>();
      for (int off = 0; off < content.length; off += PIECE) {
        offsets.add(off);
      }
      Collections.shuffle(offsets, new Random(round));
      if (round % 2 == 0) {
        Collections.sort(offsets); // in order, yet from four threads at once
      }
      List<Future<?>> done = new ArrayList<>();
      for (int off : offsets) {
        done.add(writers.submit(() -> {
          f.write(off, Math.min(PIECE, content.length - off));
          return null;
        }));
      }
      for (Future<?> d : done) {
        d.get(20, TimeUnit.SECONDS);
      }
      f.seq.awaitHashed();
      assertThat(f.verifier.verify()).as("round %d", round).isEqualTo(xxhash64Of(content));
      assertThat(f.fetch.available()).isEqualTo(content.length - 1);
    }
  }

  @Test
  void bytesWrittenBeforeTheFetchKnowsWhatToVerifyAgainst_arePublished_andHashedOnceItDoes() throws Exception {
    byte[] content = content(8 * PIECE, 4);
    Fixture f = new Fixture(content, ChecksumType.MD5, null, false); // a multipart upload: no MD5 to compare
    for (int off = 0; off < content.length; off += PIECE) {
      f.write(off, PIECE);
    }
    assertThat(f.fetch.available()).isEqualTo(content.length - 1);
    Thread.sleep(50);
    assertThat(f.seq.verifier()).isNull();
    String crc = crc64(content);
    ContentVerifier v = new ContentVerifier(ChecksumType.MD5, f.object,
        new RemoteChecksum(ChecksumType.CRC64NVME, crc));
    f.seq.hashWith(v);
    f.seq.awaitHashed();
    assertThat(v.vouched()).isTrue();
    assertThat(v.verify()).as("the bucket's own checksum").isEqualTo(md5(content));

    Fixture g = new Fixture(content, ChecksumType.MD5, null, false);
    for (int off = 0; off < content.length; off += PIECE) {
      g.write(off, PIECE);
    }
    g.seq.hashWith(new ContentVerifier(ChecksumType.MD5, g.object,
        new RemoteChecksum(ChecksumType.CRC64NVME, crc.replace(crc.charAt(3), crc.charAt(3) == '0' ? '1' : '0'))));
    g.seq.awaitHashed();
    assertThatThrownBy(g.seq.verifier()::verify).isInstanceOf(ChecksumMismatchException.class)
        .hasMessageContaining("crc64nvme");
  }

  @Test
  void contentThatDiffersFromTheRemotesMd5_failsVerification() throws Exception {
    byte[] content = content(8 * PIECE, 3);
    String claimed = md5(content);
    content[5 * PIECE + 7] ^= 1; // the bytes that arrived are not the ones the remote vouched for
    Fixture f = new Fixture(content, ChecksumType.MD5, claimed);
    for (int off = 0; off < content.length; off += PIECE) {
      f.write(off, PIECE);
    }
    f.seq.awaitHashed();
    assertThatThrownBy(f.verifier::verify).isInstanceOf(ChecksumMismatchException.class);
  }

  private final class Fixture {
    final byte[] content;
    final FileChannel file;
    final Fetch fetch = new Fetch(null, null, null);
    final RemoteObject object;
    final ContentVerifier verifier;
    final Sequencer seq;

    Fixture(byte[] content, ChecksumType bucketType, String md5) throws IOException {
      this(content, bucketType, md5, true);
    }

    Fixture(byte[] content, ChecksumType bucketType, String md5, boolean hashNow) throws IOException {
      this.content = content;
      this.file = FileChannel.open(dir.resolve("work-" + System.nanoTime()), StandardOpenOption.CREATE_NEW,
          StandardOpenOption.READ, StandardOpenOption.WRITE);
      this.object = new RemoteObject("k", content.length, md5 == null ? "abc-2" : md5, null, 0, md5, null, null, null);
      this.verifier = new ContentVerifier(bucketType, object);
      this.seq = new Sequencer(file, content.length, fetch, hashing);
      if (hashNow) {
        seq.hashWith(verifier);
      }
    }

    /** Writes a piece as a fetch does (a direct buffer, written whole) and reports it. */
    void write(int offset, int length) throws IOException {
      ByteBuffer buf = ByteBuffer.allocateDirect(length).put(content, offset, length).flip();
      for (long pos = offset; buf.hasRemaining(); ) {
        pos += file.write(buf, pos);
      }
      seq.completed(offset, length);
    }
  }

  private static String xxhash64Of(byte[] content) {
    ContentHasher h = ContentHasher.of(ChecksumType.XXHASH64);
    h.update(ByteBuffer.wrap(content));
    return h.hex();
  }

  private static String crc64(byte[] content) {
    ContentHasher h = ContentHasher.of(ChecksumType.CRC64NVME);
    h.update(ByteBuffer.wrap(content));
    return h.hex();
  }

  private static byte[] content(int size, long seed) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static String md5(byte[] b) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(b));
  }
}
