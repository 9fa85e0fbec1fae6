package io.granary.testkit;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * S3Proxy ({@code org.gaul:s3proxy}, jar-with-dependencies) in its own JVM on a free 127.0.0.1 port, with the
 * in-memory {@code transient} store (or {@code filesystem} under a directory) and SigV4 authentication with a fixed
 * identity. The jar comes from the system property {@code granary.s3proxy.jar}. Closing it kills the process.
 *
 * <p>Its own JVM because the jar's closure (aws-sdk, google-cloud-storage, Jackson 3, logback) clashes with ours.
 * The process writes to {@code workDir/s3proxy.log}. A shutdown hook kills it if a test forgets {@link #close}.
 *
 * <p>SigV4 through a {@link FaultProxy}: S3Proxy checks signatures against the Host header the client signed and
 * does not compare it with its own endpoint, so a client whose endpoint is the proxy works unchanged (the proxy
 * forwards the head byte for byte).
 */
public final class S3ProxyServer implements AutoCloseable {
  public static final String ACCESS_KEY = "testkit-access";
  public static final String SECRET_KEY = "testkit-secret";
  /** System property naming the s3proxy jar-with-dependencies. */
  public static final String JAR_PROPERTY = "granary.s3proxy.jar";

  private static final long START_TIMEOUT_MS = 30_000;

  private final Process process;
  private final URI endpoint;
  private final Path log;
  private final Thread shutdownHook;

  private S3ProxyServer(Process process, URI endpoint, Path log) {
    this.process = process;
    this.endpoint = endpoint;
    this.log = log;
    this.shutdownHook = new Thread(process::destroyForcibly, "s3proxy-reaper");
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  /** Starts S3Proxy with the in-memory store and waits until {@code /healthz} answers (30 s at most). */
  public static S3ProxyServer start(Path workDir) throws Exception {
    return launch(workDir, false);
  }

  /** As {@link #start(Path)} with objects on disk under {@code workDir/data} (large objects, benchmarks). */
  public static S3ProxyServer startOnDisk(Path workDir) throws Exception {
    return launch(workDir, true);
  }

  private static S3ProxyServer launch(Path workDir, boolean onDisk) throws Exception {
    Path jar = s3proxyJar();
    Files.createDirectories(workDir);
    // The free port is only probed, so another process may take it before S3Proxy binds: then try another.
    for (int attempt = 1; ; attempt++) {
      try {
        return launch(workDir, onDisk, jar, Ports.free());
      } catch (IllegalStateException e) {
        if (attempt == 3 || !String.valueOf(e.getMessage()).contains("Address already in use")) {
          throw e;
        }
      }
    }
  }

  private static S3ProxyServer launch(Path workDir, boolean onDisk, Path jar, int port) throws Exception {
    URI endpoint = URI.create("http://127.0.0.1:" + port);
    StringBuilder conf = new StringBuilder()
        .append("s3proxy.endpoint=").append(endpoint).append('\n')
        .append("s3proxy.authorization=aws-v2-or-v4\n")
        .append("s3proxy.identity=").append(ACCESS_KEY).append('\n')
        .append("s3proxy.credential=").append(SECRET_KEY).append('\n')
        .append("s3proxy.ignore-unknown-headers=true\n");
    if (onDisk) {
      Path data = Files.createDirectories(workDir.resolve("data"));
      conf.append("jclouds.provider=filesystem\n")
          // Properties syntax: backslashes (Windows paths) would be escapes.
          .append("jclouds.filesystem.basedir=").append(data.toAbsolutePath().toString().replace('\\', '/'))
          .append('\n');
    } else {
      conf.append("jclouds.provider=transient\n");
    }
    Path props = workDir.resolve("s3proxy.conf");
    Files.writeString(props, conf, StandardCharsets.UTF_8);
    Path log = workDir.resolve("s3proxy.log");

    List<String> cmd = List.of(javaBinary(), "-Xmx1g", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-Xshare:auto", "-jar", jar.toString(), "--properties", props.toString());
    Process process = new ProcessBuilder(cmd)
        .directory(workDir.toFile())
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
    S3ProxyServer server = new S3ProxyServer(process, endpoint, log);
    try {
      server.awaitHealthy();
      return server;
    } catch (Exception e) {
      server.close();
      throw e;
    }
  }

  private static Path s3proxyJar() {
    String value = System.getProperty(JAR_PROPERTY);
    if (value == null || value.isBlank()) {
      throw new IllegalStateException("System property " + JAR_PROPERTY + " is not set: point it at "
          + "s3proxy-<version>-jar-with-dependencies.jar (see the maven-dependency-plugin copy in testkit/pom.xml)");
    }
    Path jar = Path.of(value);
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("System property " + JAR_PROPERTY + " names " + jar + ", which does not exist");
    }
    return jar;
  }

  private static String javaBinary() {
    return ProcessHandle.current().info().command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
  }

  private void awaitHealthy() throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MS);
    URI health = endpoint.resolve("/healthz");
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("s3proxy exited with " + process.exitValue() + "; log tail:\n" + logTail());
      }
      try {
        HttpURLConnection c = (HttpURLConnection) health.toURL().openConnection();
        c.setConnectTimeout(500);
        c.setReadTimeout(1000);
        int code = c.getResponseCode();
        c.disconnect();
        if (code == 200) {
          return;
        }
      } catch (IOException notYet) {
        // Not listening yet.
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("s3proxy not healthy at " + health + " after " + START_TIMEOUT_MS
        + " ms; log tail:\n" + logTail());
  }

  private String logTail() {
    try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "r")) {
      long start = Math.max(0, f.length() - 4096);
      byte[] buf = new byte[(int) (f.length() - start)];
      f.seek(start);
      f.readFully(buf);
      return new String(buf, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  /** {@code http://127.0.0.1:PORT}. */
  public URI endpoint() {
    return endpoint;
  }

  /** The S3Proxy process id. */
  public long pid() {
    return process.pid();
  }

  /** The process's combined stdout/stderr. */
  public Path logFile() {
    return log;
  }

  /** Writes an AWS shared-credentials file with this server's keys under profile {@code default}. */
  public Path writeCredentialsFile(Path file) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    Files.writeString(file, "[default]\naws_access_key_id = " + ACCESS_KEY + "\naws_secret_access_key = "
        + SECRET_KEY + "\n", StandardCharsets.UTF_8);
    return file;
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException shuttingDown) {
      // The hook is running or will run; nothing to undo.
    }
  }
}
