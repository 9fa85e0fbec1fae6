package io.granary.cli;

import java.io.PrintStream;

/**
 * Draws a progress line on stderr while a command waits. On a terminal the line is redrawn in place; otherwise
 * (a log, a pipe, a test) nothing is drawn until {@link #last}, so logs get one line instead of hundreds.
 */
final class ProgressPrinter {
  private final PrintStream err;
  private final boolean tty;
  private final boolean enabled;
  private String last = "";

  ProgressPrinter(boolean enabled) {
    this(System.err, System.console() != null, enabled);
  }

  ProgressPrinter(PrintStream err, boolean tty, boolean enabled) {
    this.err = err;
    this.tty = tty;
    this.enabled = enabled;
  }

  /** Shows {@code line} as the current state. */
  void update(String line) {
    if (enabled && tty) {
      err.print("\r" + line + " ".repeat(Math.max(0, last.length() - line.length())));
      err.flush();
    }
    last = line;
  }

  /** Shows {@code line} as the final state and ends the line, so what follows starts on a fresh one. */
  void last(String line) {
    if (!enabled) {
      return;
    }
    if (tty) {
      update(line);
      err.println();
    } else {
      err.println(line);
    }
  }
}
