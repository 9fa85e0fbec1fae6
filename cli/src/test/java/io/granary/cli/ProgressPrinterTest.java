package io.granary.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ProgressPrinterTest {
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);

  @Test
  void notATerminal_printsOnlyTheLastLine() {
    ProgressPrinter p = new ProgressPrinter(err, false, true);
    p.update("1 of 3");
    p.update("2 of 3");
    p.last("3 of 3");
    assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo("3 of 3" + System.lineSeparator());
  }

  @Test
  void terminal_redrawsInPlace_blankingWhatALongerLineLeft() {
    ProgressPrinter p = new ProgressPrinter(err, true, true);
    p.update("10 of 300");
    p.last("done");
    assertThat(bytes.toString(StandardCharsets.UTF_8))
        .isEqualTo("\r10 of 300\rdone     " + System.lineSeparator());
  }

  @Test
  void disabled_printsNothing() {
    ProgressPrinter p = new ProgressPrinter(err, true, false);
    p.update("1");
    p.last("2");
    assertThat(bytes.toString(StandardCharsets.UTF_8)).isEmpty();
  }
}
