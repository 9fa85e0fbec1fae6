package io.granary.target.validation;

import static io.granary.target.mirror.MirrorFixture.content;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.granary.target.mirror.MirrorFixture;
import io.granary.target.mirror.Mirroring;
import io.granary.target.storage.Mountpath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CopyVerifier} and {@link Scrubs} over a real store with three mountpaths and real mirroring: bytes flipped
 * in a file (same size) are found, the bad copy quarantined and restored from an intact one, byte-exact; with no
 * intact copy the object is left as it is and counted; a scrub walks every object once.
 */
class CopyVerifierTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir
  Path tmp;
  private MirrorFixture f;
  private Mirroring mirroring;
  private ValidationStats stats;
  private CopyVerifier verifier;

  private void open(int copies) throws IOException {
    f = new MirrorFixture(tmp, 3, copies);
    mirroring = new Mirroring("t1", f.store, f::current, 1, 64);
    stats = new ValidationStats();
    verifier = new CopyVerifier("t1", f.store, mirroring, stats, MainCopyRebuild.NONE);
  }

  @AfterEach
  void close() throws IOException {
    if (mirroring != null) {
      mirroring.close();
    }
    if (f != null) {
      f.close();
    }
  }

  private byte[] putMirrored(String name, int size, int copies) throws IOException {
    byte[] body = content(size, name.hashCode());
    f.put(name, body);
    await().atMost(WAIT).until(() -> holders(name) == copies);
    return body;
  }

  private int holders(String name) {
    try {
      return f.holders(name).size();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Path fileOn(Mountpath mp, String name) {
    return f.locate(name).on(mp).file();
  }

  /** Flips every bit of the byte at {@code at}: same size, only a checksum notices. */
  static void flip(Path file, long at) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      ch.read(b, at);
      b.put(0, (byte) ~b.get(0));
      ch.write(b.rewind(), at);
    }
  }

  private static long files(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.count();
    }
  }

  @Test
  void intactCopies_areClean_andEveryCopyIsHashed() throws IOException {
    open(2);
    byte[] body = putMirrored("a", 700_000, 2);

    CopyVerifier.Verdict v = verifier.verify(f.bucket, "a", CopyVerifier.Source.SCRUB);

    assertThat(v).isEqualTo(new CopyVerifier.Verdict(CopyVerifier.Outcome.CLEAN, 2, 2L * body.length, 0));
    assertThat(stats.scrubFailures() + stats.getFailures() + stats.quarantined()).isZero();
  }

  @Test
  void flippedMainCopy_isQuarantined_andRestoredFromTheMirrorCopy_byteExact() throws IOException {
    open(2);
    byte[] body = putMirrored("a", 300_000, 2);
    Mountpath main = f.locate("a").mountpath();
    flip(fileOn(main, "a"), 12_345);

    CopyVerifier.Verdict v = verifier.verify(f.bucket, "a", CopyVerifier.Source.GET);

    assertThat(v.outcome()).isEqualTo(CopyVerifier.Outcome.REPAIRED);
    assertThat(v.corrupt()).isEqualTo(1);
    assertThat(Files.readAllBytes(fileOn(main, "a"))).isEqualTo(body);
    assertThat(f.read("a")).isEqualTo(body);
    assertThat(holders("a")).isEqualTo(2);
    assertThat(files(main.quarantineDir())).as("the bad file, kept aside").isEqualTo(1);
    assertThat(stats.getFailures()).isEqualTo(1);
    assertThat(stats.mirrorRepairs()).isEqualTo(1);
    assertThat(verifier.verify(f.bucket, "a", CopyVerifier.Source.SCRUB).outcome())
        .isEqualTo(CopyVerifier.Outcome.CLEAN);
  }

  @Test
  void flippedMirrorCopy_isMadeAgainFromTheMainCopy() throws IOException {
    open(3);
    byte[] body = putMirrored("a", 64, 3);
    Mountpath copy = f.holders("a").get(2);
    flip(fileOn(copy, "a"), 63);

    CopyVerifier.Verdict v = verifier.verify(f.bucket, "a", CopyVerifier.Source.SCRUB);

    assertThat(v.outcome()).isEqualTo(CopyVerifier.Outcome.REPAIRED);
    assertThat(v.copies()).isEqualTo(3);
    assertThat(Files.readAllBytes(fileOn(copy, "a"))).isEqualTo(body);
    assertThat(stats.scrubFailures()).isEqualTo(1);
    assertThat(f.metaOn(f.locate("a").mountpath(), "a").copies()).hasSize(2);
  }

  @Test
  void aMissingCopyFile_besideAnIntactCopy_isRestored() throws IOException {
    open(2);
    byte[] body = putMirrored("a", 4096, 2);
    Mountpath copy = f.holders("a").get(1);
    Files.delete(fileOn(copy, "a"));

    CopyVerifier.Verdict v = verifier.verify(f.bucket, "a", CopyVerifier.Source.SCRUB);

    assertThat(v).isEqualTo(new CopyVerifier.Verdict(CopyVerifier.Outcome.REPAIRED, 1, body.length, 0));
    assertThat(Files.readAllBytes(fileOn(copy, "a"))).isEqualTo(body);
    assertThat(stats.scrubFailures()).as("nothing corrupt").isZero();
  }

  @Test
  void noIntactCopy_localObject_isLeftInPlace_andCountedUnrepairable() throws IOException {
    open(1);
    byte[] body = content(5000, 1);
    f.put("a", body);
    Path file = fileOn(f.locate("a").mountpath(), "a");
    flip(file, 0);

    CopyVerifier.Verdict v = verifier.verify(f.bucket, "a", CopyVerifier.Source.GET);

    assertThat(v.outcome()).isEqualTo(CopyVerifier.Outcome.UNREPAIRABLE);
    assertThat(Files.size(file)).as("the only bytes stay").isEqualTo(body.length);
    assertThat(stats.unrepairable()).isEqualTo(1);
    assertThat(stats.quarantined()).isZero();
  }

  @Test
  void scrub_walksEveryObjectOnce_andRepairsWhatItFinds() throws IOException {
    open(2);
    for (int i = 0; i < 20; i++) {
      putMirrored("o-" + i, 1000 + i, 2);
    }
    flip(fileOn(f.locate("o-3").mountpath(), "o-3"), 5);
    flip(fileOn(f.holders("o-7").get(1), "o-7"), 6);
    try (Scrubs scrubs = new Scrubs("t1", f.store, verifier, f::current)) {
      scrubs.request(f.bucket);
      await().atMost(WAIT).until(() -> scrubs.progress().stream().anyMatch(p -> p.state().equals("succeeded")));

      Scrubs.Progress p = scrubs.progress().get(0);
      long bytes = 0;
      for (int i = 0; i < 20; i++) {
        bytes += 2L * (1000 + i);
      }
      assertThat(p).isEqualTo(new Scrubs.Progress("ais/bkt", "succeeded", 20, bytes, 2, 2, 0, null));
      scrubs.request(f.bucket);
      await().atMost(WAIT).until(() -> scrubs.progress().get(0).state().equals("succeeded"));
      assertThat(scrubs.progress()).extracting(Scrubs.Progress::corrupt).isEqualTo(List.of(0L));
    }
  }
}
