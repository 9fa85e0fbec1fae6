package io.granary.it.support;

import io.granary.cli.local.ClassSharing;
import io.granary.cli.local.LocalCluster;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.hrw.PlacementKey;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A real local cluster for a test class: one proxy and N targets as separate JVMs, started from the packaged
 * granary command, on free loopback ports, with data and node logs under target/it-data/NAME.
 */
public final class TestCluster implements AutoCloseable {
  /** Ports after the last target's found free too, for targets a test adds ({@link LocalCluster#addTarget}). */
  static final int SPARE_TARGET_PORTS = 3;

  /** One class-data archive for every node the tests start (see {@link ClassSharing}). */
  private static final ClassSharing SHARING = new ClassSharing(Path.of(System.getProperty("granary.it.dir",
      "target/it-data")).toAbsolutePath().resolve("class-sharing"), System.getProperty("granary.node.classpath", ""));

  private final LocalCluster cluster;
  private final Path dir;

  private TestCluster(LocalCluster cluster, Path dir) {
    this.cluster = cluster;
    this.dir = dir;
  }

  /** Starts {@code targets} targets; {@code jvmOptions} apply to every node. */
  public static TestCluster start(String name, int targets, List<String> jvmOptions, List<String> proxyArgs)
      throws Exception {
    return start(name, targets, jvmOptions, proxyArgs, false);
  }

  /** As above; {@code nativeAuth} makes the native /v1/ API require SigV4 like a deployed proxy. */
  public static TestCluster start(String name, int targets, List<String> jvmOptions, List<String> proxyArgs,
      boolean nativeAuth) throws Exception {
    return start(name, targets, jvmOptions, proxyArgs, nativeAuth, List.of());
  }

  /** As above; {@code targetArgs} are appended to every target's command line. */
  public static TestCluster start(String name, int targets, List<String> jvmOptions, List<String> proxyArgs,
      boolean nativeAuth, List<String> targetArgs) throws Exception {
    Path dir = Path.of(System.getProperty("granary.it.dir", "target/it-data")).toAbsolutePath().resolve(name);
    deleteTree(dir);
    Files.createDirectories(dir);
    String cp = System.getProperty("granary.node.classpath");
    if (cp == null || cp.isBlank()) {
      throw new IllegalStateException("system property granary.node.classpath is not set; run through Maven (failsafe)");
    }
    // The serial collector, as granary local runs its nodes (LocalCluster.NODE_JVM_OPTIONS): on two cores G1's
    // concurrent and parallel threads cost every node CPU the tests' own work then waits for
    List<String> jvm = new ArrayList<>(List.of("-Xms32m", "-Xmx256m", "-XX:+UseSerialGC",
        "-XX:+ExitOnOutOfMemoryError", "-XX:TieredStopAtLevel=1", "-Xshare:auto"));
    jvm.addAll(jvmOptions);
    jvm.addAll(SHARING.jvmOptions(jvm));
    int port = freePortRange(targets + 1 + SPARE_TARGET_PORTS);
    // Targets register without their warm-up, which serves only a joining target's first second under load and
    // took about 3 s of both cores at every start here; granary local (LocalCommandIT) and the benches keep it.
    List<String> targetFlags = new ArrayList<>(List.of("--warm-up=false"));
    targetFlags.addAll(targetArgs);
    LocalCluster.Options opts = new LocalCluster.Options(targets, "127.0.0.1", port, dir, jvm, cp, true,
        Duration.ofSeconds(90), proxyArgs, null, nativeAuth, targetFlags);
    LocalCluster started;
    try {
      started = LocalCluster.start(opts);
    } catch (Exception e) {
      SHARING.clusterFailed();
      throw e;
    }
    SHARING.clusterReady();
    return new TestCluster(started, dir);
  }

  public static TestCluster start(String name, int targets) throws Exception {
    return start(name, targets, List.of(), List.of("--health-interval", "1s", "--offline-after", "4s"));
  }

  public LocalCluster local() {
    return cluster;
  }

  public String endpoint() {
    return cluster.endpoint();
  }

  public Path dir() {
    return dir;
  }

  /** Signs requests to targets as a proxy does: targets refuse unsigned ones. */
  public io.granary.common.auth.ClusterSigner signer() {
    return io.granary.common.auth.ClusterSigner.of(cluster.clusterSecret());
  }

  /** {@code b} with the cluster signature headers for its method and URI. */
  public java.net.http.HttpRequest.Builder signed(java.net.http.HttpRequest.Builder b) {
    java.net.http.HttpRequest probe = b.copy().build();
    java.net.URI u = probe.uri();
    String target = u.getRawPath() + (u.getRawQuery() == null ? "" : "?" + u.getRawQuery());
    io.netty.handler.codec.http.HttpHeaders h = new io.netty.handler.codec.http.DefaultHttpHeaders();
    signer().signHeaders(probe.method(), target, h);
    h.forEach(e -> b.setHeader(e.getKey(), e.getValue()));
    return b;
  }

  /** The signature header lines (each preceded by CRLF) for a raw request to a target. */
  public String signatureLines(String method, String uri) {
    io.netty.handler.codec.http.HttpHeaders h = new io.netty.handler.codec.http.DefaultHttpHeaders();
    signer().signHeaders(method, uri, h);
    StringBuilder sb = new StringBuilder();
    h.forEach(e -> sb.append("\r\n").append(e.getKey()).append(": ").append(e.getValue()));
    return sb.toString();
  }

  /** Creates a local (ais) bucket through the native API; the caller checks the reply (201). */
  public Http.Reply createBucket(String bucket) throws Exception {
    return Http.send(Http.NO_FOLLOW, java.net.http.HttpRequest.newBuilder(java.net.URI.create(endpoint() + "/v1/buckets/"
        + bucket)).POST(java.net.http.HttpRequest.BodyPublishers.noBody()));
  }

  /** Creates a local bucket with {@code propsJson} (e.g. {@code {"checksum":"crc32c"}}); the caller checks the reply. */
  public Http.Reply createBucket(String bucket, String propsJson) throws Exception {
    return Http.send(Http.NO_FOLLOW, java.net.http.HttpRequest.newBuilder(java.net.URI.create(endpoint() + "/v1/buckets/"
        + bucket)).POST(java.net.http.HttpRequest.BodyPublishers.ofString(propsJson)));
  }

  /** A signed GET to a target (or any node). */
  public Http.Reply getSigned(String url) throws Exception {
    return Http.send(Http.NO_FOLLOW, signed(java.net.http.HttpRequest.newBuilder(java.net.URI.create(url)).GET()));
  }

  /** The S3 key pair of this cluster. */
  public io.granary.common.s3.auth.Credentials credentials() {
    return cluster.credentials();
  }

  public List<String> targetIds() {
    return cluster.targetIds();
  }

  public String targetUrl(String id) {
    return cluster.targetUrl(id);
  }

  /** The cluster map as the proxy serves it. */
  public ClusterMap map() throws Exception {
    return ClusterJson.mapper().readValue(Http.get(endpoint() + "/v1/cluster/map").bodyText(), ClusterMap.class);
  }

  /** The HRW owner of an object under the current map. */
  public Node owner(String bucket, String name) throws Exception {
    return map().placement().owner(PlacementKey.digest(Bucket.local(bucket), name)).orElseThrow();
  }

  /** Mountpath directories of a target: DIR/tI/mp1 and mp2. */
  public List<Path> mountpaths(String targetId) {
    return List.of(dir.resolve(targetId).resolve("mp1"), dir.resolve(targetId).resolve("mp2"));
  }

  @Override
  public void close() {
    cluster.close();
  }

  /** Stops the cluster and deletes its data at once, for tests whose gigabytes are worth giving back early. */
  public void closeAndDeleteData() throws IOException {
    close();
    deleteTree(dir);
  }

  /**
   * The first port of {@code n} consecutive free loopback ports, below the kernel's ephemeral range: a port kept
   * spare for a target a test adds later must not be taken meanwhile as the local port of some client connection
   * (under load there are thousands), or that target fails to bind.
   */
  public static int freePortRange(int n) throws IOException {
    int high = Math.max(12000, ephemeralLow()) - n;
    for (int attempt = 0; attempt < 200; attempt++) {
      int base = ThreadLocalRandom.current().nextInt(10000, high);
      boolean ok = true;
      for (int p = base; p < base + n && ok; p++) {
        try (ServerSocket s = new ServerSocket(p, 1, InetAddress.getLoopbackAddress())) {
          s.setReuseAddress(true);
        } catch (IOException e) {
          ok = false;
        }
      }
      if (ok) {
        return base;
      }
    }
    throw new IOException("no " + n + " consecutive free ports found");
  }

  /** The lowest port the kernel hands out to outgoing connections (Linux), or 32768 when it cannot be read. */
  private static int ephemeralLow() {
    try {
      return Integer.parseInt(Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim()
          .split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      return 32768;
    }
  }

  static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (var walk = Files.walk(root)) {
      for (Path p : (Iterable<Path>) walk.sorted((a, b) -> b.getNameCount() - a.getNameCount())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }
}
