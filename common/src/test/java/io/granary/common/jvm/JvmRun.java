package io.granary.common.jvm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a JVM of this JDK with some options, as a launcher starts a node, and returns what it printed. */
final class JvmRun {
  private JvmRun() {}

  /** The output of {@code java OPTIONS... ARGS...}, which must exit 0 within a minute. */
  static String output(List<String> options, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    cmd.addAll(options);
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out;
    try (InputStream in = p.getInputStream()) {
      out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("%s exits", cmd).isTrue();
    assertThat(p.exitValue()).as("exit status of %s; output:%n%s", cmd, out).isZero();
    return out;
  }
}
