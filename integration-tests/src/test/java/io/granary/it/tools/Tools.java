package io.granary.it.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * Runs third-party command-line clients (python3 + boto3, s3cmd, rclone, the AWS CLI) against a test cluster: each command with
 * a bounded time (the process and its children are killed when it runs over), its output in a log file under the
 * scratch directory, and an environment cleaned of the machine's AWS, rclone and proxy settings so that only what
 * the test passes counts.
 */
final class Tools {
  static final Duration TIMEOUT = Duration.ofSeconds(120);
  private static final int SHOWN = 30_000; // characters of output a failure message shows (the tail)
  private static final AtomicInteger SEQ = new AtomicInteger();

  private Tools() {}

  /** One finished (or killed) command. */
  record Run(List<String> command, int exit, boolean timedOut, String output, Path log) {
    boolean ok() {
      return !timedOut && exit == 0;
    }

    /** The command, how it ended and its output (the tail when long): the message of a failed assertion. */
    String describe() {
      String shown = output.length() <= SHOWN ? output
          : "[... " + (output.length() - SHOWN) + " characters, full output in " + log + "]\n"
              + output.substring(output.length() - SHOWN);
      return "$ " + String.join(" ", command) + "\n" + (timedOut ? "KILLED after the timeout" : "exit " + exit)
          + "\n--- output (stdout and stderr) ---\n" + shown + "\n--- end of output ---";
    }
  }

  /**
   * Runs {@code command} in {@code dir} with {@code env} added to a cleaned environment, for at most
   * {@code timeout}; fails the test when the program cannot be started at all (not installed).
   */
  static Run run(Path dir, Map<String, String> env, Duration timeout, List<String> command) throws Exception {
    Files.createDirectories(dir);
    Path logs = Files.createDirectories(dir.resolve("logs"));
    String tool = Path.of(command.get(0)).getFileName().toString();
    Path log = logs.resolve(String.format("%03d-%s.log", SEQ.incrementAndGet(), tool));
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.from(nullFile()));
    clean(pb.environment());
    pb.environment().putAll(env);
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new AssertionError(tool + " could not be started (" + e.getMessage() + "): is it installed? "
          + "`bash .ci/run` installs the S3 clients these tests drive (s3cmd and rclone with apt-get, boto3 and awscli with pip)",
          e);
    }
    boolean finished = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    if (!finished) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
    String output = new String(Files.readAllBytes(log), StandardCharsets.UTF_8); // lossy: output may be binary
    return new Run(List.copyOf(command), finished ? p.exitValue() : -1, !finished, output, log);
  }

  /** {@link #run} with {@link #TIMEOUT}, asserting that the command succeeded. */
  static Run ok(Path dir, Map<String, String> env, List<String> command) throws Exception {
    Run r = run(dir, env, TIMEOUT, command);
    assertThat(r.ok()).as(r::describe).isTrue();
    return r;
  }

  /**
   * Fails the test, with how to install it, when {@code command} (a version query) cannot run: missing clients are
   * an error of the machine, not a reason to skip.
   */
  static Run requireInstalled(Path dir, String what, String install, List<String> command) throws Exception {
    Run r;
    try {
      r = run(dir, Map.of(), Duration.ofSeconds(60), command);
    } catch (AssertionError e) {
      throw new AssertionError(what + " is required by this test and is not installed. `bash .ci/run` installs it ("
          + install + "); on this machine run that command, then the tests again. (" + e.getMessage() + ")", e);
    }
    if (!r.ok()) {
      fail(what + " is required by this test and does not work. `bash .ci/run` installs it (" + install + ").\n"
          + r.describe());
    }
    return r;
  }

  /**
   * Drops settings of the machine that the clients would pick up: AWS_* (a CA bundle or a profile changes how the
   * SDKs behave: rclone refuses to start with AWS_CA_BUNDLE over plain HTTP), RCLONE_*, S3CMD_*, and HTTP proxies
   * (loopback must be reached directly).
   */
  private static void clean(Map<String, String> env) {
    env.keySet().removeIf(k -> {
      String u = k.toUpperCase(java.util.Locale.ROOT);
      return u.startsWith("AWS_") || u.startsWith("RCLONE_") || u.startsWith("S3CMD_") || u.startsWith("BOTO_")
          || u.equals("HTTP_PROXY") || u.equals("HTTPS_PROXY") || u.equals("ALL_PROXY") || u.equals("NO_PROXY");
    });
    env.put("NO_PROXY", "127.0.0.1,localhost");
    env.put("no_proxy", "127.0.0.1,localhost");
    env.put("LC_ALL", "C.UTF-8"); // unicode file names on the command line and in the output
    env.put("LANG", "C.UTF-8");
    env.put("PYTHONIOENCODING", "utf-8");
  }

  private static java.io.File nullFile() {
    return new java.io.File(System.getProperty("os.name").startsWith("Windows") ? "NUL" : "/dev/null");
  }

  /** A fresh, empty scratch directory for a client's files: target/it-data/NAME, next to the clusters' data. */
  static Path scratch(String name) throws IOException {
    Path dir = Path.of(System.getProperty("granary.it.dir", "target/it-data")).toAbsolutePath().resolve(name);
    if (Files.exists(dir)) {
      try (Stream<Path> walk = Files.walk(dir)) {
        for (Path p : (Iterable<Path>) walk.sorted(java.util.Comparator.reverseOrder())::iterator) {
          Files.delete(p);
        }
      }
    }
    return Files.createDirectories(dir);
  }

  /** Copies a test resource (a script) to {@code target}. */
  static Path resource(String name, Path target) throws IOException {
    try (InputStream in = Tools.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("test resource " + name + " is missing");
      }
      Files.createDirectories(target.getParent());
      Files.copy(in, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
    return target;
  }

  /** Every regular file under {@code root}, by relative path ('/'-separated), with its SHA-256. */
  static Map<String, String> tree(Path root) throws Exception {
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : (Iterable<Path>) walk.filter(Files::isRegularFile)::iterator) {
        files.put(root.relativize(p).toString().replace('\\', '/'), sha256(p));
      }
    }
    return files;
  }

  static String sha256(Path file) throws Exception {
    return digest("SHA-256", file);
  }

  static String md5(Path file) throws Exception {
    return digest("MD5", file);
  }

  private static String digest(String algorithm, Path file) throws Exception {
    MessageDigest d = MessageDigest.getInstance(algorithm);
    try (InputStream in = Files.newInputStream(file)) {
      byte[] buf = new byte[1 << 16];
      for (int n; (n = in.read(buf)) > 0; ) {
        d.update(buf, 0, n);
      }
    }
    return HexFormat.of().formatHex(d.digest());
  }

  /** Writes {@code size} deterministic pseudo-random bytes. */
  static Path file(Path p, long seed, int size) throws IOException {
    Files.createDirectories(p.getParent());
    Files.write(p, io.granary.it.support.Content.bytes(seed, size));
    return p;
  }

  /**
   * A local tree with nested directories, unicode and awkward names, an empty file and a multi-megabyte one:
   * what sync-style commands have to carry over unchanged.
   */
  static Map<String, String> sampleTree(Path root, long seed) throws Exception {
    List<String> names = new ArrayList<>(List.of("top.txt", "a/b/c/deep file.bin", "a/zero.bin",
        "a/plus+and%percent&amp;=.txt", "ünïcødé dir/日本/ファイル.txt", "ünïcødé dir/naïve café.txt",
        "emoji 🚀/rocket.txt", "a/b/sibling-1.txt", "a/b/sibling-2.txt"));
    for (int i = 0; i < names.size(); i++) {
      String n = names.get(i);
      int size = n.endsWith("zero.bin") ? 0 : n.endsWith("deep file.bin") ? 3_000_000 : 1 + i * 1000;
      file(root.resolve(n), seed + i, size);
    }
    return tree(root);
  }
}
