package io.granary.cli.local;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.common.exec.Background;
import io.granary.common.jvm.NativeHeapTrim;
import io.granary.common.jvm.SharedArchiveMapping;
import io.granary.common.s3.auth.Credentials;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.stream.Stream;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One proxy and N targets as separate JVM processes on one host, each target with two mountpaths under the data
 * directory:
 *
 * <pre>
 * DATA/proxy/              proxy p1 (port P)
 * DATA/tI/mp1, DATA/tI/mp2 target tI (port P+I)
 * DATA/logs/ID.log         each node's output, when logging to files
 * </pre>
 *
 * Children die with the launcher (they watch its pid), so no process outlives it. The integration tests use
 * this class too, to start, kill -9 and restart real nodes.
 */
public final class LocalCluster implements AutoCloseable {
  /** Options of a local cluster. */
  public record Options(int targets, String host, int port, Path dataDir, List<String> jvmOptions,
      String classpath, boolean logToFiles, Duration startTimeout, List<String> proxyArgs, Credentials credentials,
      boolean nativeAuth, List<String> targetArgs) {
    public Options {
      if (targets < 1) {
        throw new IllegalArgumentException("--targets must be at least 1, got " + targets);
      }
      if (port < 1 || port + targets > 65535) {
        throw new IllegalArgumentException("--port must leave room for " + targets + " target ports below 65536");
      }
      jvmOptions = List.copyOf(jvmOptions);
      proxyArgs = List.copyOf(proxyArgs);
      targetArgs = targetArgs == null ? List.of() : List.copyOf(targetArgs);
      credentials = credentials == null ? Credentials.generate() : credentials;
    }

    /**
     * Every node's JVM options by default: a small heap that grows only as needed, and the serial collector, whose
     * bookkeeping is a few MiB where G1's is about 40 MiB a node at this heap size (bench/footprint.sh: the default
     * cluster idled at 785 MiB with G1, 693 MiB serial). A node's object bytes live off the heap, so its live heap
     * is small and young collections are short. {@link Background#JVM_OPTIONS}: background work yields to requests.
     * {@link SharedArchiveMapping}: the nodes share one copy of the class-data archive. {@link NativeHeapTrim}:
     * memory freed after a load goes back to the system (docs/memory.md). No {@code hsperfdata}: its sampler woke
     * every node 20 times a second, 0.15% of a core each when idle ({@code jcmd PID} still works; {@code jps} and
     * {@code jstat} do not see the nodes).
     */
    public static final List<String> NODE_JVM_OPTIONS = Stream.of(Stream.of("-Xms16m", "-Xmx512m",
        "-XX:+UseSerialGC", "-XX:+ExitOnOutOfMemoryError", "-XX:-UsePerfData"), Background.JVM_OPTIONS.stream(),
        SharedArchiveMapping.jvmOptions().stream(), NativeHeapTrim.jvmOptions().stream()).flatMap(o -> o).toList();

    /**
     * {@code defaults} followed by {@code extra}; a collector chosen in {@code extra} ({@code -XX:+Use...GC})
     * replaces the default one, which the JVM would otherwise refuse as a conflicting combination.
     */
    public static List<String> withExtraJvmOptions(List<String> defaults, List<String> extra) {
      boolean collectorGiven = extra.stream().anyMatch(LocalCluster.Options::selectsCollector);
      List<String> out = new ArrayList<>();
      for (String o : defaults) {
        if (!(collectorGiven && selectsCollector(o))) {
          out.add(o);
        }
      }
      out.addAll(extra);
      return out;
    }

    private static boolean selectsCollector(String option) {
      return option.startsWith("-XX:+Use") && option.endsWith("GC");
    }

    /**
     * Defaults: 3 targets, 127.0.0.1:51080, this JVM's classpath, {@link #NODE_JVM_OPTIONS}, output inherited, a
     * generated key pair, the native API open (loopback only).
     */
    public static Options defaults(Path dataDir) {
      return new Options(3, "127.0.0.1", 51080, dataDir, NODE_JVM_OPTIONS,
          System.getProperty("java.class.path"), false, Duration.ofSeconds(60), List.of(), null, false, List.of());
    }
  }

  private static final String MAIN = "io.granary.cli.GranaryCommand";
  private final Options opts;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final Map<String, Process> processes = new LinkedHashMap<>();
  private final Map<String, List<String>> commands = new LinkedHashMap<>();
  private final String clusterSecret = newSecret();

  private LocalCluster(Options opts) {
    this.opts = opts;
  }

  /**
   * The cluster secret the nodes of this local cluster sign their requests to each other with: GRANARY_CLUSTER_SECRET
   * when set (benchmarks sign their own direct-to-target URLs with it), else a fresh random one.
   */
  private static String newSecret() {
    String given = System.getenv("GRANARY_CLUSTER_SECRET");
    if (given != null && given.trim().length() >= 16) {
      return given.trim();
    }
    byte[] b = new byte[24];
    new SecureRandom().nextBytes(b);
    return HexFormat.of().formatHex(b);
  }

  /**
   * Starts the proxy and the targets together (each target registers once the proxy listens, as pods do), and
   * returns once every node is ready ({@code GET /v1/health/ready}) and every target is active in the proxy's map.
   * Refuses to start when a node's port is taken: a node that cannot bind would exit, and a cluster already listening
   * there would answer for it. On failure the nodes started are stopped.
   */
  public static LocalCluster start(Options opts) throws IOException, InterruptedException, TimeoutException {
    LocalCluster c = new LocalCluster(opts);
    try {
      for (int i = 0; i <= opts.targets(); i++) {
        c.requirePortFree(i == 0 ? "p1" : "t" + i);
      }
      // Not one after the other: a node's JVM start is mostly one core's work, and the machine may have more
      c.launch("p1", c.proxyArgs());
      for (int i = 1; i <= opts.targets(); i++) {
        c.launchTarget(i, List.of());
      }
      c.awaitHealthy(c.endpoint());
      c.awaitReady(List.copyOf(c.processes.keySet()));
      c.awaitActiveTargets(opts.targets());
      return c;
    } catch (IOException | InterruptedException | TimeoutException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  private void launchTarget(int i, List<String> extraArgs) throws IOException {
    String id = "t" + i;
    Path dir = opts.dataDir().resolve(id);
    List<String> args = new ArrayList<>(List.of("target", "--id", id, "--host", opts.host(), "--port",
        String.valueOf(opts.port() + i), "--mountpath", dir.resolve("mp1").toString(), "--mountpath",
        dir.resolve("mp2").toString(), "--primary", endpoint()));
    args.addAll(withoutOverridden(opts.targetArgs(), extraArgs));
    args.addAll(extraArgs);
    launch(id, args);
  }

  /**
   * {@code base} without the {@code --name=value} arguments that {@code extra} gives again (in either form): a
   * target's own arguments override the cluster's, where a command line naming an option twice would be refused.
   */
  static List<String> withoutOverridden(List<String> base, List<String> extra) {
    java.util.Set<String> named = new java.util.HashSet<>();
    for (String a : extra) {
      if (a.startsWith("--")) {
        named.add(a.split("=", 2)[0]);
      }
    }
    return base.stream().filter(a -> !(a.startsWith("--") && a.contains("=") && named.contains(a.split("=", 2)[0])))
        .toList();
  }

  /**
   * Starts one more target ({@code tN+1} on port P+N+1, the port after the last target's) with the cluster's target
   * arguments and {@code extraArgs} (which override the cluster's {@code --name=value} ones), and returns its id once
   * it is ready (active in the map).
   */
  public String addTarget(List<String> extraArgs) throws IOException, InterruptedException, TimeoutException {
    int n = targetIds().size() + 1;
    if (opts.port() + n > 65535) {
      throw new IllegalStateException("no port left for another target");
    }
    launchTarget(n, extraArgs);
    awaitReady(List.of("t" + n)); // ready: active in the map the primary gave it, so in the primary's too
    return "t" + n;
  }

  private List<String> proxyArgs() {
    List<String> a = new ArrayList<>(List.of("proxy", "--id", "p1", "--host", opts.host(), "--port",
        String.valueOf(opts.port()), "--data", opts.dataDir().resolve("proxy").toString(),
        "--native-auth=" + opts.nativeAuth()));
    a.addAll(opts.proxyArgs());
    return a;
  }

  /** The proxy's URL: the cluster's endpoint. */
  public String endpoint() {
    return "http://" + opts.host() + ":" + opts.port();
  }

  public List<String> targetIds() {
    return processes.keySet().stream().filter(id -> id.startsWith("t")).toList();
  }

  public String targetUrl(String id) {
    return "http://" + opts.host() + ":" + port(id);
  }

  /** Every node's id: {@code p1}, then the targets. */
  public List<String> nodeIds() {
    return List.copyOf(processes.keySet());
  }

  /** The port node {@code id} listens on: P for the proxy, P+I for target tI. */
  public int port(String id) {
    return id.equals("p1") ? opts.port() : opts.port() + Integer.parseInt(id.substring(1));
  }

  private String url(String id) {
    return "http://" + opts.host() + ":" + port(id);
  }

  /** Fails with "port N (node ID) is in use" when something listens on, or holds, node {@code id}'s port. */
  private void requirePortFree(String id) throws IOException {
    int port = port(id);
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true); // as the nodes bind: a connection of an earlier run in TIME_WAIT is no obstacle
      s.bind(new InetSocketAddress(opts.host(), port));
    } catch (BindException e) {
      throw new IllegalStateException("port " + port + " (" + role(id) + " " + id + ") is in use on " + opts.host()
          + "; stop what holds it or choose other ports with --port");
    }
  }

  private static String role(String id) {
    return id.equals("p1") ? "proxy" : "target";
  }

  public Path dataDir() {
    return opts.dataDir();
  }

  /** The secret the nodes sign their requests to each other with (tests use it to talk to targets directly). */
  public String clusterSecret() {
    return clusterSecret;
  }

  /** The S3 key pair clients sign with. */
  public Credentials credentials() {
    return opts.credentials();
  }

  public Process process(String id) {
    return processes.get(id);
  }

  /** Kills a node with SIGKILL (kill -9) and waits for it to die. */
  public void kill(String id) throws InterruptedException {
    Process p = processes.get(id);
    p.destroyForcibly();
    p.waitFor(30, TimeUnit.SECONDS);
  }

  /** Starts a stopped or killed node again with the same arguments (same id, ports and directories). */
  public void restart(String id) throws IOException {
    Process p = processes.get(id);
    if (p != null && p.isAlive()) {
      throw new IllegalStateException(id + " is still running");
    }
    launch(id, commands.get(id));
  }

  /**
   * Starts a stopped or killed node again with {@code option} set to {@code value} (replacing its value, or added),
   * the rest of its arguments unchanged: e.g. a target back with more capacity.
   */
  public void restartWith(String id, String option, String value) throws IOException {
    Process p = processes.get(id);
    if (p != null && p.isAlive()) {
      throw new IllegalStateException(id + " is still running");
    }
    List<String> args = new ArrayList<>(commands.get(id));
    int at = args.indexOf(option);
    if (at >= 0 && at + 1 < args.size()) {
      args.set(at + 1, value);
    } else {
      args.add(option);
      args.add(value);
    }
    launch(id, args);
  }

  private void launch(String id, List<String> args) throws IOException {
    Files.createDirectories(opts.dataDir());
    List<String> cmd = new ArrayList<>();
    cmd.add(ProcessHandle.current().info().command().orElse("java"));
    cmd.addAll(opts.jvmOptions());
    cmd.add("-cp");
    cmd.add(opts.classpath());
    cmd.add(MAIN);
    cmd.addAll(args);
    cmd.add("--exit-with-parent");
    cmd.add(String.valueOf(ProcessHandle.current().pid()));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    // Secrets go through the environment, not argv: ps shows argv.
    pb.environment().put("GRANARY_CLUSTER_SECRET", clusterSecret);
    pb.environment().put("GRANARY_ACCESS_KEY", opts.credentials().accessKey());
    pb.environment().put("GRANARY_SECRET_KEY", opts.credentials().secretKey());
    if (opts.logToFiles()) {
      Path log = logFile(id);
      Files.createDirectories(log.getParent());
      pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    } else {
      pb.inheritIO();
    }
    commands.put(id, List.copyOf(args));
    processes.put(id, pb.start());
  }

  private void awaitHealthy(String url) throws InterruptedException, TimeoutException {
    long deadline = System.nanoTime() + opts.startTimeout().toNanos();
    while (System.nanoTime() < deadline) {
      checkAlive();
      try {
        if (get(url + "/v1/health").statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(100);
    }
    throw new TimeoutException("proxy at " + url + " did not become healthy within " + opts.startTimeout());
  }

  /**
   * Waits until every node in {@code ids} answers {@code GET /v1/health/ready} with 200; fails at once, naming the node,
   * when one exits, and after the start timeout with the reasons the last not-ready node gave.
   */
  public void awaitReady(List<String> ids) throws InterruptedException, TimeoutException {
    long deadline = System.nanoTime() + opts.startTimeout().toNanos();
    List<String> waiting = new ArrayList<>(ids);
    Map<String, String> why = new LinkedHashMap<>();
    while (!waiting.isEmpty()) {
      checkAlive();
      if (System.nanoTime() > deadline) {
        String id = waiting.get(0);
        throw new TimeoutException("node " + id + " (port " + port(id) + ") did not become ready within "
            + opts.startTimeout().toSeconds() + " s: " + why.getOrDefault(id, "it did not answer") + logHint(id));
      }
      for (String id : List.copyOf(waiting)) {
        try {
          HttpResponse<String> r = get(url(id) + "/v1/health/ready");
          if (r.statusCode() == 200) {
            waiting.remove(id);
          } else {
            why.put(id, reasons(r.body()));
          }
        } catch (IOException e) {
          why.put(id, "not listening yet");
        }
      }
      if (!waiting.isEmpty()) {
        Thread.sleep(100);
      }
    }
  }

  /** The reasons of a not-ready answer, joined; its body as is when it is not readiness JSON. */
  private static String reasons(String body) {
    try {
      List<String> r = new ArrayList<>();
      ClusterJson.mapper().readTree(body).path("reasons").forEach(n -> r.add(n.asText()));
      return r.isEmpty() ? body : String.join("; ", r);
    } catch (IOException e) {
      return body;
    }
  }

  private String logHint(String id) {
    return opts.logToFiles() ? " (see " + logFile(id) + ")" : "";
  }

  private Path logFile(String id) {
    return opts.dataDir().resolve("logs").resolve(id + ".log");
  }

  /** Waits until the cluster map lists {@code n} active targets. */
  public void awaitActiveTargets(int n) throws InterruptedException, TimeoutException {
    long deadline = System.nanoTime() + opts.startTimeout().toNanos();
    while (System.nanoTime() < deadline) {
      checkAlive();
      try {
        HttpResponse<String> r = get(endpoint() + "/v1/cluster/map");
        if (r.statusCode() == 200) {
          JsonNode targets = ClusterJson.mapper().readTree(r.body()).path("targets");
          long active = 0;
          for (JsonNode t : targets) {
            active += "active".equals(t.path("state").asText()) ? 1 : 0;
          }
          if (active >= n) {
            return;
          }
        }
      } catch (IOException e) {
        // retry
      }
      Thread.sleep(100);
    }
    throw new TimeoutException(n + " targets did not become active within " + opts.startTimeout());
  }

  private void checkAlive() {
    for (Map.Entry<String, Process> e : processes.entrySet()) {
      if (!e.getValue().isAlive()) {
        String id = e.getKey();
        throw new IllegalStateException(role(id) + " " + id + " (port " + port(id) + ") exited with code "
            + e.getValue().exitValue() + " before it was ready" + exitCause(id));
      }
    }
  }

  /** Why a node exited, from its log when it has one: a port taken since the check, else where to look. */
  private String exitCause(String id) {
    if (!opts.logToFiles()) {
      return " (its output is above)";
    }
    try {
      if (Files.readString(logFile(id)).contains("Address already in use")) {
        return ": port " + port(id) + " is in use";
      }
    } catch (IOException | RuntimeException e) {
      // no log to read: point at it anyway
    }
    return logHint(id);
  }

  private HttpResponse<String> get(String url) throws IOException, InterruptedException {
    return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** Stops every node with SIGTERM (targets first), waiting for clean exits; kills what does not stop. */
  @Override
  public void close() {
    List<String> order = new ArrayList<>(processes.keySet());
    order.sort((a, b) -> a.startsWith("t") == b.startsWith("t") ? 0 : a.startsWith("t") ? -1 : 1);
    for (String id : order) {
      Process p = processes.get(id);
      if (p.isAlive()) {
        p.destroy();
      }
    }
    for (String id : order) {
      Process p = processes.get(id);
      try {
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
          p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        p.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }
}
