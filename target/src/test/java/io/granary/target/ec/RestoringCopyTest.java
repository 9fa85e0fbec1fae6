package io.granary.target.ec;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.clustermap.bucket.ChecksumType;
import io.granary.target.meta.ObjectMeta;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RestoringCopyTest {
  private static final ObjectMeta META = new ObjectMeta(10, ChecksumType.XXHASH64, "0123456789abcdef", 5);

  @TempDir
  Path dir;

  private FileChannel file() throws IOException {
    Path f = dir.resolve("work");
    Files.write(f, new byte[10]);
    return FileChannel.open(f, StandardOpenOption.READ);
  }

  @Test
  void theLastByteWaitsForVerification_andReadersAreToldOfEachStep() throws Exception {
    RestoringCopy copy = new RestoringCopy();
    AtomicInteger told = new AtomicInteger();
    copy.listen(told::incrementAndGet);
    assertThat(copy.acquire()).as("nothing to read before it is opened").isFalse();

    copy.opened(file(), META);
    assertThat(copy.started()).isCompletedWithValue(META);
    copy.written(4);
    assertThat(copy.available()).isEqualTo(4);
    copy.written(10);
    assertThat(copy.available()).as("all but the last byte, unverified").isEqualTo(9);
    assertThat(copy.finished()).isNotDone();
    copy.verified();
    assertThat(copy.available()).isEqualTo(10);
    assertThat(copy.finished()).isCompleted();
    assertThat(told.get()).isEqualTo(3);
  }

  @Test
  void aFailedRebuild_failsTheReaders_andAnUnopenedOneSaysItWillNotStream() throws Exception {
    RestoringCopy opened = new RestoringCopy();
    opened.opened(file(), META);
    opened.written(10);
    opened.fail(new IOException("slice 0 failed its checksum"));
    assertThat(opened.finished()).isCompletedExceptionally();
    opened.verified(); // a retry's commit
    assertThat(opened.available()).as("the last byte of the failed attempt never goes out").isEqualTo(9);

    RestoringCopy never = new RestoringCopy();
    never.fail(new IOException("503 Busy"));
    assertThat(never.started()).isCompletedWithValue(null);
    RestoringCopy nothing = new RestoringCopy();
    nothing.notStreamed();
    assertThat(nothing.started()).isCompletedWithValue(null);
  }

  @Test
  void theFileStaysOpenUntilTheLastReaderLeaves_andNoReaderJoinsAfter() throws Exception {
    RestoringCopy copy = new RestoringCopy();
    FileChannel ch = file();
    copy.opened(ch, META);
    assertThat(copy.acquire()).isTrue();
    copy.release(); // the rebuild is done
    assertThat(ch.isOpen()).as("a reader still streams").isTrue();
    copy.release(); // the reader is done
    assertThat(ch.isOpen()).isFalse();
    assertThat(copy.acquire()).as("read the committed copy instead").isFalse();
  }
}
