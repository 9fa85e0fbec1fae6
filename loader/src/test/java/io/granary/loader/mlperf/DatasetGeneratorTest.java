package io.granary.loader.mlperf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.loader.LoaderException;
import io.granary.loader.workload.Content;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --generate-dir}: plain files for a static file server, skipped when present with the right size. */
class DatasetGeneratorTest {
  private final PrintStream quiet = new PrintStream(new ByteArrayOutputStream());

  @Test
  void writeDir_writesSeededFiles_thenSkipsThem_andRewritesAShortOne(@TempDir Path dir) throws Exception {
    Dataset d = Dataset.dlio(Workload.COSMOFLOW, "cosmoflow/", 3, 1, 42);
    DatasetGenerator.Summary first = DatasetGenerator.writeDir(d, dir, 2, quiet);
    assertThat(first.written()).isEqualTo(3);
    assertThat(first.bytes()).isEqualTo(d.totalBytes());
    Path one = dir.resolve("cosmoflow/train/img_1_of_3.tfrecord");
    assertThat(Files.size(one)).isEqualTo(d.fileSize(1));
    byte[] expected = new byte[(int) d.fileSize(1)];
    Content.fill(d.contentSeed(1), 0, expected, 0, expected.length);
    assertThat(Files.readAllBytes(one)).isEqualTo(expected);

    assertThat(DatasetGenerator.writeDir(d, dir, 2, quiet).present()).isEqualTo(3);

    try (FileChannel c = FileChannel.open(one, StandardOpenOption.WRITE)) {
      c.truncate(1000);
    }
    DatasetGenerator.Summary again = DatasetGenerator.writeDir(d, dir, 2, quiet);
    assertThat(again.present()).isEqualTo(2);
    assertThat(again.written()).isEqualTo(1);
    assertThat(Files.readAllBytes(one)).isEqualTo(expected);
    try (var files = Files.walk(dir)) {
      assertThat(files.filter(p -> p.toString().endsWith(".part"))).isEmpty();
    }
  }

  @Test
  void writeDir_refusesNamesOutsideTheDirectory(@TempDir Path dir) {
    Dataset d = Dataset.dlio(Workload.COSMOFLOW, "../escape/", 1, 1, 42);
    assertThatThrownBy(() -> DatasetGenerator.writeDir(d, dir.resolve("www"), 1, quiet))
        .isInstanceOf(LoaderException.class).hasMessageContaining("is not a path under").hasMessageNotContaining("\n");
  }
}
