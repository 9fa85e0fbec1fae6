package io.granary.cli;

import io.granary.loader.LoadOptions;
import io.granary.loader.LoadRunner;
import io.granary.loader.Protocol;
import io.granary.loader.report.ResultJson;
import io.granary.loader.report.RunResult;
import io.granary.loader.report.StatsTable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code granary load}: the load generator (module loader), and {@code granary load merge} for the JSON of
 * several loaders. Values with units are parsed here rather than by picocli converters, so a bad one is a
 * one-line error from {@link GranaryCommand}'s handler.
 */
@Command(name = "load", mixinStandardHelpOptions = true, subcommands = LoadCommand.Merge.class,
    description = {"Generate GET/PUT load against proxies (native or S3 API) or any HTTP server, aisloader-style.",
        "Prints a stats row per --interval and a summary; --json writes results that 'granary load merge' combines."})
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

  @Override
  public Integer call() throws Exception {
    new LoadRunner(options(), System.out, System.err).run();
    return 0;
  }

  LoadOptions options() {
    return new LoadOptions(LoadOptions.parseEndpoints(endpoints), bucket, Protocol.parse(protocol),
        LoadOptions.parseDuration("--duration", duration), workers, LoadOptions.parseSize("--min-size", minSize),
        LoadOptions.parseSize("--max-size", maxSize), pctPut, maxPuts, names, verify, json, loaderId, loaders,
        seed != null ? seed : System.currentTimeMillis(), LoadOptions.parseDuration("--interval", interval), cleanup,
        accessKey != null ? accessKey : System.getenv("AWS_ACCESS_KEY_ID"),
        secretKey != null ? secretKey : System.getenv("AWS_SECRET_ACCESS_KEY"));
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
