package io.granary.cli.local;

import io.granary.proxy.auth.Credentials;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
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
      description = "S3 access key (default: generated and printed); with --secret-key.")
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

  /** The file under --data that holds the running cluster's secret, for clients that talk to targets directly. */
  static final String SECRET_FILE = "cluster-secret";

  @Override
  public Integer call() throws Exception {
    LocalCluster.Options d = LocalCluster.Options.defaults(data.toAbsolutePath());
    List<String> jvm = new ArrayList<>(d.jvmOptions());
    jvm.addAll(jvmOpts);
    if ((accessKey == null) != (secretKey == null)) {
      throw new IllegalArgumentException("give both --access-key and --secret-key, or neither");
    }
    Credentials keys = accessKey == null ? Credentials.generate() : new Credentials(accessKey, secretKey);
    LocalCluster.Options opts = new LocalCluster.Options(targets, "127.0.0.1", port, data.toAbsolutePath(), jvm,
        d.classpath(), logToFiles, Duration.ofSeconds(90), List.of(), keys, auth, targetArgs);
    CountDownLatch stopped = new CountDownLatch(1);
    LocalCluster[] cluster = new LocalCluster[1];
    Path secretFile = opts.dataDir().resolve(SECRET_FILE);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      System.err.println("granary local: stopping...");
      if (cluster[0] != null) {
        cluster[0].close();
      }
      try {
        Files.deleteIfExists(secretFile);
      } catch (IOException e) {
        // best effort: the next start overwrites it
      }
      stopped.countDown();
    }, "local-shutdown"));
    cluster[0] = LocalCluster.start(opts);
    writeSecret(secretFile, cluster[0].clusterSecret());
    System.out.println();
    System.out.println("Granary local cluster is up: 1 proxy, " + targets + " targets, data in " + opts.dataDir());
    System.out.println("  endpoint:    " + cluster[0].endpoint() + "   (S3 at / and /s3/, native API at /v1/)");
    System.out.println("  S3 keys:     AWS_ACCESS_KEY_ID=" + keys.accessKey() + " AWS_SECRET_ACCESS_KEY="
        + keys.secretKey() + " AWS_REGION=us-east-1");
    System.out.println("  native API:  " + (auth ? "requires SigV4 with the S3 keys" : "open on loopback (--auth to require keys)"));
    System.out.println("  cluster map: curl " + cluster[0].endpoint() + "/v1/cluster/map");
    System.out.println("  secret:      " + secretFile + "   (the cluster secret, for granary load --direct)");
    System.out.println("  try:         aws --endpoint-url " + cluster[0].endpoint() + " s3 mb s3://demo");
    System.out.println("               curl -X POST " + cluster[0].endpoint() + "/v1/buckets/demo2"
        + (auth ? "   (sign it: --auth is on)" : ""));
    System.out.println("Press Ctrl-C to stop.");
    System.out.flush();
    stopped.await();
    return 0;
  }

  /** Writes the secret readable by this user only (where the file system has POSIX permissions). */
  private static void writeSecret(Path file, String secret) throws IOException {
    Files.deleteIfExists(file);
    try {
      Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (UnsupportedOperationException e) {
      Files.createFile(file);
    }
    Files.writeString(file, secret + "\n", StandardCharsets.UTF_8);
  }
}
