package io.granary.cli.local;

import io.granary.common.s3.auth.Credentials;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code granary local}: a whole cluster on this machine, stopped with Ctrl-C. */
@Command(name = "local", mixinStandardHelpOptions = true,
    description = {"Run a local cluster: 1 proxy and N targets as separate processes on 127.0.0.1.",
        "Each target gets two mountpaths under --data. Ctrl-C or SIGTERM stops them all."})
public final class LocalCommand implements Callable<Integer> {

  @Option(names = "--targets", defaultValue = "3", description = "Number of targets (default: ${DEFAULT-VALUE}).")
  int targets;

  @Option(names = "--port", defaultValue = "51080",
      description = "Proxy port; targets use the next N ports (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(names = "--data", defaultValue = ".granary/local",
      description = "Directory for all node data; kept between runs (default: ${DEFAULT-VALUE}).")
  Path data;

  @Option(names = "--log-dir-only", description = "Write node output to DATA/logs/ID.log instead of this terminal.")
  boolean logToFiles;

  @Option(names = "--jvm-opt", description = "Extra JVM option for every node (repeatable), e.g. --jvm-opt=-Xmx2g.")
  List<String> jvmOpts = new ArrayList<>();

  @Option(names = "--access-key", defaultValue = "${env:GRANARY_ACCESS_KEY}",
      description = "S3 access key (default: the one kept in DATA/s3-keys, else generated; printed); with --secret-key.")
  String accessKey;

  @Option(names = "--secret-key", defaultValue = "${env:GRANARY_SECRET_KEY}",
      description = "S3 secret key (default: generated and printed).")
  String secretKey;

  @Option(names = "--target-arg", paramLabel = "ARG",
      description = {"Extra flag for every target (repeatable), e.g. --target-arg=--capacity=1GiB "
          + "--target-arg=--dont-evict=1m."})
  List<String> targetArgs = new ArrayList<>();

  @Option(names = "--auth", description = "Require signed requests on the native /v1/ API too (S3 always needs them).")
  boolean auth;

  @Option(names = "--class-sharing", defaultValue = "auto", paramLabel = "auto|off",
      description = {"auto (default): nodes map a class-data archive made from the first start's nodes "
          + "(DATA/class-sharing), so later starts are faster; off: nodes start without one, and none is made."})
  String classSharing;

  /** The file under --data that holds the running cluster's secret, for clients that talk to targets directly. */
  static final String SECRET_FILE = "cluster-secret";

  @Override
  public Integer call() throws Exception {
    // Every check runs before anything is written under --data: a refused start leaves it as it was.
    if (!classSharing.equals("auto") && !classSharing.equals("off")) {
      throw new IllegalArgumentException("--class-sharing is auto or off, got '" + classSharing + "'");
    }
    if ((accessKey == null) != (secretKey == null)) {
      throw new IllegalArgumentException("give both --access-key and --secret-key, or neither");
    }
    Credentials given = accessKey == null ? null : new Credentials(accessKey, secretKey);
    LocalCluster.Options d = LocalCluster.Options.defaults(data.toAbsolutePath());
    List<String> jvm = new ArrayList<>(LocalCluster.Options.withExtraJvmOptions(d.jvmOptions(), jvmOpts));
    validated(d, jvm, null);
    LocalKeys.Resolved keys = LocalKeys.resolve(data.toAbsolutePath(), given);
    ClassSharing sharing = new ClassSharing(data.toAbsolutePath().resolve("class-sharing"), d.classpath());
    if (classSharing.equals("auto")) {
      jvm.addAll(sharing.jvmOptions(jvm));
    }
    LocalCluster.Options opts = validated(d, jvm, keys.credentials());
    CountDownLatch stopped = new CountDownLatch(1);
    AtomicBoolean stopping = new AtomicBoolean();
    LocalCluster[] cluster = new LocalCluster[1];
    Path secretFile = opts.dataDir().resolve(SECRET_FILE);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      stopping.set(true);
      if (cluster[0] != null) {
        System.err.println("granary local: stopping...");
        cluster[0].close();
      }
      try {
        Files.deleteIfExists(secretFile);
      } catch (IOException e) {
        // best effort: the next start overwrites it
      }
      stopped.countDown();
    }, "local-shutdown"));
    // Fails (exit 1, one line naming the node, its port and the cause) unless every node is ready: see LocalCluster.
    try {
      cluster[0] = LocalCluster.start(opts);
    } catch (Exception e) {
      sharing.clusterFailed();
      throw e;
    }
    sharing.clusterReady(); // the next start maps what this one's nodes loaded
    PrivateFile.write(secretFile, cluster[0].clusterSecret() + "\n");
    printBanner(cluster[0], opts, keys);
    CompletableFuture<?> allExited = watchNodes(cluster[0], stopping);
    allExited.thenRun(stopped::countDown);
    stopped.await();
    if (!stopping.get()) {
      System.err.println("granary local: every node has exited");
      return 1;
    }
    return 0;
  }

  private LocalCluster.Options validated(LocalCluster.Options defaults, List<String> jvm, Credentials credentials) {
    return new LocalCluster.Options(targets, "127.0.0.1", port, data.toAbsolutePath(), jvm, defaults.classpath(),
        logToFiles, Duration.ofSeconds(90), List.of(), credentials, auth, targetArgs);
  }

  private void printBanner(LocalCluster c, LocalCluster.Options opts, LocalKeys.Resolved keys) {
    String endpoint = c.endpoint();
    Credentials k = keys.credentials();
    System.out.println();
    System.out.println("Granary local cluster is up: 1 proxy, " + targets + " targets, data in " + opts.dataDir());
    System.out.println("  endpoint:    " + endpoint + "   (S3 at / and /s3/, native API at /v1/)");
    System.out.println("  S3 keys:     AWS_ACCESS_KEY_ID=" + k.accessKey() + " AWS_SECRET_ACCESS_KEY="
        + k.secretKey() + " AWS_REGION=us-east-1");
    System.out.println("               " + switch (keys.source()) {
      case KEPT -> "kept from the last run in " + keys.file();
      case GENERATED -> "new, kept in " + keys.file() + " for the next runs";
      case GIVEN -> "as given, kept in " + keys.file() + " for the next runs";
    });
    System.out.println("  native API:  " + (auth ? "requires SigV4 with the S3 keys" : "open on loopback (--auth to require keys)"));
    System.out.println("  cluster map: curl " + endpoint + "/v1/cluster/map");
    System.out.println("  secret:      " + opts.dataDir().resolve(SECRET_FILE) + "   (the cluster secret, for granary load --direct)");
    System.out.println("  try:         aws --endpoint-url " + endpoint + " s3 mb s3://demo");
    System.out.println("               curl -X POST " + endpoint + "/v1/buckets/demo2"
        + (auth ? "   (sign it: --auth is on)" : ""));
    System.out.println("  CLI:         export GRANARY_ENDPOINT=" + endpoint + "   (other granary commands then aim here)");
    System.out.println("Press Ctrl-C to stop.");
    System.out.flush();
  }

  /**
   * Says so, one line each, when a node exits while the cluster runs (a decommissioned target exits 0 on purpose),
   * and completes once every node has exited: a launcher with no nodes has nothing left to run.
   */
  private static CompletableFuture<?> watchNodes(LocalCluster c, AtomicBoolean stopping) {
    List<CompletableFuture<?>> exits = new ArrayList<>();
    for (String id : c.nodeIds()) {
      exits.add(c.process(id).onExit().thenAccept(p -> {
        if (!stopping.get()) {
          System.err.println("granary local: node " + id + " (port " + c.port(id) + ") exited with code "
              + p.exitValue());
        }
      }));
    }
    return CompletableFuture.allOf(exits.toArray(CompletableFuture[]::new));
  }
}
