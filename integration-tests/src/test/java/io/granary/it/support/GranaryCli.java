package io.granary.it.support;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the {@code granary} command as users do, in its own JVM on the nodes' classpath, and captures what it prints
 * and its exit status. Bounded: a command still running after its timeout is killed and fails the test.
 */
public final class GranaryCli {
  /** What one command did. */
  public record Result(int exit, String stdout, String stderr) {
    public String all() {
      return stdout + stderr;
    }
  }

  /** Commands that run long or measure, with the JVM's defaults (as the {@code granary} launcher script runs them). */
  private static final java.util.Set<String> LONG_RUNNING = java.util.Set.of("local", "proxy", "target", "operator",
      "load");
  /**
   * What the {@code granary} launcher script gives a command that asks the cluster once and exits: about 1.6 s of
   * one core instead of 2.5 s of both, for each of the suite's commands.
   */
  private static final List<String> ONE_SHOT_JVM_OPTIONS = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  private GranaryCli() {}

  /** The command line of {@code granary ARGS} in a JVM of its own, with the JVM options the launcher script gives. */
  public static List<String> commandLine(List<String> args) {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    if (args.isEmpty() || !LONG_RUNNING.contains(args.get(0))) {
      cmd.addAll(ONE_SHOT_JVM_OPTIONS);
    }
    cmd.addAll(List.of("-cp", System.getProperty("granary.node.classpath"), "io.granary.cli.GranaryCommand"));
    cmd.addAll(args);
    return cmd;
  }

  public static Result run(Duration timeout, String... args) throws Exception {
    return run(timeout, Map.of(), args);
  }

  /** Runs with {@code env} added to, and GRANARY_CLUSTER_SECRET otherwise removed from, this JVM's environment. */
  public static Result run(Duration timeout, Map<String, String> env, String... args) throws Exception {
    List<String> cmd = commandLine(List.of(args));
    Path out = Files.createTempFile("granary-cli", ".out");
    Path err = Files.createTempFile("granary-cli", ".err");
    try {
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
      pb.environment().remove("GRANARY_CLUSTER_SECRET");
      pb.environment().putAll(env);
      Process p = pb.start();
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        throw new AssertionError("granary " + String.join(" ", args) + " did not end within " + timeout + ": "
            + Files.readString(out, StandardCharsets.UTF_8));
      }
      return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
