package io.granary.cli;

import io.granary.loader.LoadOptions;
import io.granary.loader.LoadRunner;
import io.granary.loader.Protocol;
import io.granary.loader.mlperf.MlperfOptions;
import io.granary.loader.mlperf.MlperfRunner;
import io.granary.loader.mlperf.Workload;
import io.granary.loader.report.ResultJson;
import io.granary.loader.report.RunResult;
import io.granary.loader.report.StatsTable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code granary load}: the load generator (module loader), and {@code granary load merge} for the JSON of
 * several loaders. Values with units are parsed here rather than by picocli converters, so a bad one is a
 * one-line error from {@link GranaryCommand}'s handler.
 */
@Command(name = "load", mixinStandardHelpOptions = true, subcommands = LoadCommand.Merge.class,
    description = {"Generate GET/PUT load against proxies (native or S3 API) or any HTTP server, aisloader-style.",
        "Prints a stats row per --interval and a summary; --json writes results that 'granary load merge' combines.",
        "With --workload: MLPerf Storage-style emulated accelerators, their AU, and --search for the most that pass."})
public final class LoadCommand implements Callable<Integer> {
  @Option(names = "--endpoint", defaultValue = "${env:GRANARY_ENDPOINT:-http://127.0.0.1:51080}",
      description = "Proxy URL, or base URL with --protocol http; repeat or comma-separate for several "
          + "(workers are spread round-robin). Default: ${DEFAULT-VALUE} (env GRANARY_ENDPOINT).")
  List<String> endpoints;

  @Option(names = "--bucket", description = "Bucket: NAME or ais://NAME; s3://NAME and gs://NAME (cached remote, "
      + "native only). Not used by --protocol http.")
  String bucket;

  @Option(names = "--protocol", defaultValue = "native", description = "native (/v1/, follows the 307), s3, or http "
      + "(GET BASE_URL/NAME). Default: ${DEFAULT-VALUE}.")
  String protocol;

  @Option(names = "--duration", defaultValue = "1m", description = "How long to run: 30s, 2m, 1h; 0 = until "
      + "--max-puts (with --pct-put 100). Default: ${DEFAULT-VALUE}.")
  String duration;

  @Option(names = "--workers", defaultValue = "10", description = "Concurrent workers. Default: ${DEFAULT-VALUE}.")
  int workers;

  @Option(names = "--min-size", defaultValue = "1MiB", description = "Smallest PUT object, e.g. 4KiB, 150KiB. "
      + "Default: ${DEFAULT-VALUE}.")
  String minSize;

  @Option(names = "--max-size", defaultValue = "1MiB", description = "Largest PUT object, e.g. 1MiB, 10MB. "
      + "Default: ${DEFAULT-VALUE}.")
  String maxSize;

  @Option(names = "--pct-put", defaultValue = "0", description = "Percentage of PUTs, 0-100. Default: "
      + "${DEFAULT-VALUE}.")
  int pctPut;

  @Option(names = "--max-puts", defaultValue = "0", description = "Stop PUTting after N PUTs (0: no limit).")
  long maxPuts;

  @Option(names = "--names", paramLabel = "FILE", description = "Objects to GET, one name a line. Default: the "
      + "objects this run PUTs, or (with --pct-put 0) a listing of the bucket.")
  Path names;

  @Option(names = "--verify", description = "Check every GET body: objects this run PUT byte for byte, others "
      + "against an MD5 ETag. A mismatch counts as an error.")
  boolean verify;

  @Option(names = "--json", paramLabel = "FILE", description = "Write the results as JSON.")
  Path json;

  @Option(names = "--loader-id", defaultValue = "0", description = "This loader's index, 0 to --loaders - 1.")
  int loaderId;

  @Option(names = "--loaders", defaultValue = "1", description = "How many loaders split the names.")
  int loaders;

  @Option(names = "--seed", description = "Seed of sizes, the mix, picks and content. Default: the clock.")
  Long seed;

  @Option(names = "--interval", defaultValue = "10s", description = "Stats row period; 0 = summary only. "
      + "Default: ${DEFAULT-VALUE}.")
  String interval;

  @Option(names = "--cleanup", description = "Delete the objects this run PUT when it ends.")
  boolean cleanup;

  @Option(names = "--access-key", description = "S3 access key (default: env AWS_ACCESS_KEY_ID).")
  String accessKey;

  @Option(names = "--secret-key", description = "S3 secret key (default: env AWS_SECRET_ACCESS_KEY).")
  String secretKey;

  @Option(names = "--epochs", defaultValue = "0", description = "Read every name once per epoch, in a fresh shuffled "
      + "order each; the run ends after N epochs or at --duration (0 for no time limit). Needs --pct-put 0.")
  int epochs;

  @Option(names = "--unique-gets", arity = "0..1", defaultValue = "true", fallbackValue = "true",
      paramLabel = "true|false", description = "GET names in shuffled permutations, each read equally (default); "
      + "--unique-gets=false picks uniformly at random, with replacement.")
  boolean uniqueGets;

  @Option(names = "--read-off", defaultValue = "0", description = "Range reads: first byte of each GET, e.g. 1MiB.")
  String readOff;

  @Option(names = "--read-len", defaultValue = "0", description = "Range reads: bytes per GET from --read-off "
      + "(0: to the end of the object). Default: whole objects.")
  String readLen;

  @Option(names = "--direct", description = "Native only: send object requests straight to the owning target "
      + "(HRW over the proxy's cluster map), signed with the cluster secret; no 307.")
  boolean direct;

  @Option(names = "--cluster-secret", paramLabel = "SECRET", description = "Cluster secret for --direct (default: env "
      + "GRANARY_CLUSTER_SECRET; prefer it or --cluster-secret-file: ps shows arguments).")
  String clusterSecret;

  @Option(names = "--cluster-secret-file", paramLabel = "FILE", description = "File whose first line is the cluster "
      + "secret, e.g. DATA/cluster-secret of granary local.")
  Path clusterSecretFile;

  /** {@code --workload} and its flags: the MLPerf Storage-style mode (docs/loader.md, "MLPerf mode"). */
  @Mixin
  MlperfFlags mlperf;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    if (mlperf.checkFlags(spec)) {
      new MlperfRunner(mlperfOptions(), System.out).run();
      return 0;
    }
    new LoadRunner(options(), System.out, System.err).run();
    return 0;
  }

  LoadOptions options() {
    return new LoadOptions(LoadOptions.parseEndpoints(endpoints), bucket, Protocol.parse(protocol),
        LoadOptions.parseDuration("--duration", duration), workers, LoadOptions.parseSize("--min-size", minSize),
        LoadOptions.parseSize("--max-size", maxSize), pctPut, maxPuts, names, verify, json, loaderId, loaders,
        seed != null ? seed : System.currentTimeMillis(), LoadOptions.parseDuration("--interval", interval), cleanup,
        accessKey != null ? accessKey : System.getenv("AWS_ACCESS_KEY_ID"),
        secretKey != null ? secretKey : System.getenv("AWS_SECRET_ACCESS_KEY"), epochs, uniqueGets,
        LoadOptions.parseSize("--read-off", readOff), LoadOptions.parseSize("--read-len", readLen), direct,
        LoadOptions.clusterSecret(clusterSecret, clusterSecretFile, direct, System.getenv("GRANARY_CLUSTER_SECRET")));
  }

  MlperfOptions mlperfOptions() {
    Workload w = Workload.parse(mlperf.workload);
    MlperfFlags m = mlperf;
    return new MlperfOptions(w, LoadOptions.parseEndpoints(endpoints), bucket, Protocol.parse(protocol),
        m.accelerators, m.search, m.maxAccelerators, m.files != null ? m.files : names != null ? 0 : w.files(),
        m.samplesPerFile != null ? m.samplesPerFile : w.samplesPerFile(),
        spec.commandLine().getParseResult().hasMatchedOption("--epochs") ? epochs : 1, m.stepsPerEpoch,
        m.computeTime != null ? MlperfOptions.parseSeconds("--compute-time", m.computeTime) : w.computeSeconds(),
        m.readThreads != null ? m.readThreads : w.readThreads(), m.prefix != null ? m.prefix : w.wireName() + "/",
        names, m.generate, m.generateDir, m.generateOnly, workers, json, seed != null ? seed : 0,
        accessKey != null ? accessKey : System.getenv("AWS_ACCESS_KEY_ID"),
        secretKey != null ? secretKey : System.getenv("AWS_SECRET_ACCESS_KEY"), direct,
        LoadOptions.clusterSecret(clusterSecret, clusterSecretFile, direct, System.getenv("GRANARY_CLUSTER_SECRET")));
  }

  /**
   * The MLPerf mode's own flags. With {@code --workload}, of the other flags only {@link #SHARED} apply (the rest
   * describe the aisloader-style mix); without it, none of these do. Either mistake is a one-line error.
   */
  static final class MlperfFlags {
    /** Flags of the plain loader that also mean something with --workload. */
    static final Set<String> SHARED = Set.of("--endpoint", "--bucket", "--protocol", "--names", "--json", "--seed",
        "--workers", "--epochs", "--access-key", "--secret-key", "--direct", "--cluster-secret",
        "--cluster-secret-file");

    @Option(names = "--workload", paramLabel = "NAME", description = "MLPerf Storage-style mode: resnet50, unet3d or "
        + "cosmoflow (DLIO's H100 sample sizes, batch, read threads and compute time; AU as DLIO computes it).")
    String workload;

    @Option(names = "--accelerators", defaultValue = "1", description = "With --workload: emulated accelerators, "
        + "each with its own reader threads (with --search: where the search starts). Default: ${DEFAULT-VALUE}.")
    int accelerators;

    @Option(names = "--search", description = "With --workload: find the most accelerators that keep AU at the "
        + "workload's threshold (90%%/90%%/70%%): doubling, then bisection; each probe is a run.")
    boolean search;

    @Option(names = "--max-accelerators", defaultValue = "0", description = "With --search: the most accelerators "
        + "to try. Default: as many as the dataset gives at least 2 steps each.")
    int maxAccelerators;

    @Option(names = "--files", description = "With --workload: files in the dataset. Default: DLIO's (1024, 168, "
        + "524288).")
    Integer files;

    @Option(names = "--samples-per-file", description = "With --workload: samples per file. Default: DLIO's (1251, "
        + "1, 1).")
    Integer samplesPerFile;

    @Option(names = "--steps-per-epoch", defaultValue = "0", description = "With --workload: steps of each "
        + "accelerator per epoch (at least 2). Default: as many as its share of the dataset fills.")
    int stepsPerEpoch;

    @Option(names = "--compute-time", paramLabel = "T", description = "With --workload: emulated compute per batch, "
        + "e.g. 0.224 or 3.5ms. Default: the workload's H100 time (changing it makes AU incomparable with MLPerf).")
    String computeTime;

    @Option(names = "--read-threads", description = "With --workload: reader threads per accelerator. Default: "
        + "DLIO's (8, 4, 4).")
    Integer readThreads;

    @Option(names = "--prefix", description = "With --workload: where the DLIO-named files are, PREFIX/train/img_..."
        + " Default: the workload's name and a slash.")
    String prefix;

    @Option(names = "--generate", description = "With --workload: PUT the dataset's missing objects first "
        + "(native or s3).")
    boolean generate;

    @Option(names = "--generate-dir", paramLabel = "DIR", description = "With --workload: write the dataset as "
        + "plain files under DIR (e.g. nginx's root), skipping those present with the right size.")
    Path generateDir;

    @Option(names = "--generate-only", description = "With --workload: generate (--generate, --generate-dir), then "
        + "stop without a run.")
    boolean generateOnly;

    /** True in MLPerf mode; a one-line {@link IllegalArgumentException} for a flag of the other mode. */
    boolean checkFlags(CommandSpec spec) {
      List<OptionSpec> own = spec.mixins().get("mlperf").options();
      boolean on = workload != null;
      for (OptionSpec o : spec.commandLine().getParseResult().matchedOptions()) {
        boolean mine = own.contains(o);
        if (on && !mine && !SHARED.contains(o.longestName())) {
          throw new IllegalArgumentException(o.longestName() + " does not apply with --workload");
        }
        if (!on && mine) {
          throw new IllegalArgumentException(o.longestName() + " needs --workload");
        }
      }
      return on;
    }
  }

  /** {@code granary load merge A.json B.json ... [--json OUT]}. */
  @Command(name = "merge", mixinStandardHelpOptions = true,
      description = {"Combine the --json results of loaders that ran together: counts, bytes and errors add up,",
          "latency percentiles come from the merged histograms, throughput is over the longest run."})
  static final class Merge implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "FILE", description = "Results written by granary load --json.")
    List<Path> files;

    @Option(names = "--json", paramLabel = "FILE", description = "Write the merged results here.")
    Path json;

    @Override
    public Integer call() throws Exception {
      List<RunResult> runs = new ArrayList<>();
      for (Path f : files) {
        runs.add(ResultJson.read(f));
      }
      RunResult merged = RunResult.merge(runs);
      System.out.println("merged " + runs.size() + " results (" + merged.loaders() + " loaders, " + merged.workers()
          + " workers)");
      new StatsTable(System.out).summary(merged);
      if (json != null) {
        ResultJson.write(merged, json);
      }
      return 0;
    }
  }
}
