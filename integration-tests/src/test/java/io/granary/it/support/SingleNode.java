package io.granary.it.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One proxy or target in its own JVM, started from the packaged granary command outside a {@link TestCluster}, for
 * tests of a node on its own (before it has joined, without targets). Output goes to {@code log}; the node is tied
 * to this JVM ({@code --exit-with-parent}) and {@link #close()} stops it.
 */
public final class SingleNode implements AutoCloseable {
  private final Process process;
  private final String url;
  private final Path log;

  private SingleNode(Process process, String url, Path log) {
    this.process = process;
    this.url = url;
    this.log = log;
  }

  /** Starts {@code granary ARGS --host 127.0.0.1 --port PORT}, logging to {@code log}. */
  public static SingleNode start(int port, Path log, List<String> args) throws IOException {
    return start(port, log, args, Map.of());
  }

  /** {@link #start(int, Path, List)} with {@code env} added to the node's environment. */
  public static SingleNode start(int port, Path log, List<String> args, Map<String, String> env) throws IOException {
    Files.createDirectories(log.getParent());
    List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
        "-Xms32m", "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("granary.node.classpath"),
        "io.granary.cli.GranaryCommand"));
    cmd.addAll(args);
    cmd.addAll(List.of("--host", "127.0.0.1", "--port", String.valueOf(port), "--exit-with-parent",
        String.valueOf(ProcessHandle.current().pid())));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().putAll(env);
    Process p = pb.start();
    return new SingleNode(p, "http://127.0.0.1:" + port, log);
  }

  public String url() {
    return url;
  }

  public Process process() {
    return process;
  }

  public Path log() {
    return log;
  }

  /** SIGTERM, then SIGKILL if it does not stop. */
  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }
}
