package io.granary.loader.mlperf;

import io.granary.common.auth.ClusterSigner;
import io.granary.loader.LoaderException;
import io.granary.loader.Protocol;
import io.granary.loader.protocol.HttpGetClient;
import io.granary.loader.protocol.NativeClient;
import io.granary.loader.protocol.ObjectClient;
import io.granary.loader.protocol.S3ObjectClient;
import io.granary.loader.report.OpSummary;
import io.granary.loader.report.RunResult;
import io.granary.loader.report.StatsTable;
import io.granary.loader.workload.Names;
import java.io.PrintStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code granary load --workload}: generate the dataset if asked, check it is there, then one run of
 * {@code --accelerators} or the {@code --search}; print the epochs, probes and a summary, write the JSON. Runs on
 * the caller's thread. Unusable input (endpoint, bucket, missing files, a dataset too small for the accelerators)
 * is a one-line {@link LoaderException} before any load.
 */
public final class MlperfRunner {
  private final MlperfOptions o;
  private final PrintStream out;
  private final MlperfTable table;

  public MlperfRunner(MlperfOptions o, PrintStream out) {
    this.o = o;
    this.out = out;
    this.table = new MlperfTable(out);
  }

  /** Runs to the end; null with {@code --generate-only}. A single run that was aborted throws after the JSON. */
  public MlperfResult run() throws Exception {
    Dataset d = o.namesFile() != null ? Dataset.named(o.workload(), Names.read(o.namesFile()), o.samplesPerFile())
        : Dataset.dlio(o.workload(), o.prefix(), o.files(), o.samplesPerFile(), o.seed());
    if (d.files() == 0) {
      throw new LoaderException("--names " + o.namesFile() + " lists no files");
    }
    int limit = o.generateOnly() ? 0 : limit(d);
    boolean configured = false;
    if (o.generateDir() != null) {
      configuration(d);
      configured = true;
      out.println(DatasetGenerator.writeDir(d, o.generateDir(), o.workers(), out).line(o.generateDir().toString()));
    }
    if (o.generateOnly() && !o.generate()) {
      return null;
    }
    List<ObjectClient> clients = new ArrayList<>();
    try {
      for (URI e : o.endpoints()) {
        clients.add(open(e, Math.max(limit, o.accelerators())));
      }
      for (ObjectClient c : clients) {
        c.probe(d.name(0));
      }
      if (!configured) {
        configuration(d);
      }
      if (o.generate()) {
        Set<String> existing = new HashSet<>(clients.get(0).list());
        out.println(DatasetGenerator.put(d, clients, existing, o.workers(), out).line("bucket " + o.bucket()));
        if (o.generateOnly()) {
          return null;
        }
      } else if (o.protocol() != Protocol.HTTP) {
        checkPresent(d, clients.get(0));
      }
      MlperfResult r = load(d, clients, limit);
      if (o.jsonFile() != null) {
        MlperfJson.write(r, o.jsonFile());
      }
      if (!o.search() && r.reported().aborted() != null) {
        throw new LoaderException("run aborted: " + r.reported().aborted());
      }
      return r;
    } finally {
      clients.forEach(ObjectClient::close);
    }
  }

  /**
   * Checks that the dataset fits the accelerators (one-line error if not) and returns the search's upper bound:
   * {@code --max-accelerators}, or as many as the dataset gives at least two steps each; 0 without a search.
   */
  private int limit(Dataset d) {
    AcceleratorRun.check(o, d, o.accelerators());
    if (!o.search()) {
      return 0;
    }
    int fitting = AcceleratorRun.maxFitting(o, d);
    return o.maxAccelerators() > 0 ? Math.min(o.maxAccelerators(), fitting) : fitting;
  }

  private MlperfResult load(Dataset d, List<ObjectClient> clients, int limit) throws Exception {
    AcceleratorRun run = new AcceleratorRun(o, d, clients, table);
    List<ProbeResult> probes;
    int accelerators;
    ProbeResult reported;
    boolean atLimit = false;
    long start = System.nanoTime();
    if (o.search()) {
      if (o.maxAccelerators() > limit) {
        out.println("search: the dataset fits at most " + limit + " accelerators (at least 2 steps each), not "
            + "--max-accelerators " + o.maxAccelerators());
      }
      out.println("search: " + o.accelerators() + " to " + limit + " accelerators, AU threshold "
          + MlperfTable.pct(o.workload().auThreshold()) + "%");
      table.header();
      AcceleratorSearch.Outcome<ProbeResult> s =
          AcceleratorSearch.search(o.accelerators(), limit, run::run, ProbeResult::pass);
      probes = s.probes();
      accelerators = s.best();
      atLimit = s.atLimit();
      reported = reported(probes, s.best());
      table.search(probes);
    } else {
      table.header();
      reported = run.run(o.accelerators());
      probes = List.of(reported);
      accelerators = o.accelerators();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    OpSummary gets = null;
    for (ProbeResult p : probes) {
      gets = gets == null ? p.gets() : gets.merge(p.gets());
    }
    gets = new OpSummary("get", gets.count(), gets.bytes(), gets.errors(), 0, seconds, gets.latency());
    MlperfResult r = new MlperfResult(o, d, accelerators, reported, probes, limit, atLimit, gets, seconds);
    out.println(resultLine(r));
    new StatsTable(out).summary(new RunResult(seconds, Map.of("get", gets), o.protocol().wireName(), o.bucket(), 1,
        accelerators * o.readThreads()));
    return r;
  }

  /** The last passing probe of the best count; with none, the smallest count probed. */
  private static ProbeResult reported(List<ProbeResult> probes, int best) {
    ProbeResult r = null;
    for (ProbeResult p : probes) {
      if (best > 0 ? p.accelerators() == best && p.pass() : r == null || p.accelerators() < r.accelerators()) {
        r = p;
      }
    }
    return r;
  }

  /** One endpoint's client; {@code accelerators} (the most a run uses) sizes the S3 connection pool. */
  private ObjectClient open(URI endpoint, int accelerators) {
    return switch (o.protocol()) {
      case NATIVE -> new NativeClient(endpoint, o.bucket(), o.direct() ? ClusterSigner.of(o.clusterSecret()) : null);
      case S3 -> new S3ObjectClient(endpoint, o.bucket(), o.accessKey(), o.secretKey(),
          Math.max(o.workers(), accelerators * o.readThreads() / o.endpoints().size() + 1), o.direct());
      case HTTP -> new HttpGetClient(endpoint);
    };
  }

  /** The bucket must hold every file: a one-line error naming the first missing one otherwise. */
  private void checkPresent(Dataset d, ObjectClient client) throws Exception {
    Set<String> listed = new HashSet<>(client.list());
    int missing = 0;
    String first = null;
    for (String n : d.names()) {
      if (!listed.contains(n)) {
        missing++;
        first = first == null ? n : first;
      }
    }
    if (missing > 0) {
      throw new LoaderException("bucket '" + o.bucket() + "' lacks " + missing + " of " + d.files() + " dataset files "
          + "(first: " + first + ")" + (o.namesFile() == null ? ": add --generate" : ""));
    }
  }

  private void configuration(Dataset d) {
    Workload w = o.workload();
    out.printf(Locale.ROOT, "granary load --workload %s: %s %s%s, %d files x %d samples of %s (%s)%s, batch %d, "
            + "%d read threads per accelerator, compute %ss per batch, AU threshold %s%%, %d epoch%s, %s, seed %d%n",
        w.wireName(), o.protocol().wireName() + (o.direct() ? " (direct to targets)" : ""), o.endpoints(),
        o.bucket() == null ? "" : " " + o.bucket(), d.files(), d.samplesPerFile(), StatsTable.bytes(w.recordBytes()),
        StatsTable.bytes(d.totalBytes()),
        o.namesFile() != null ? " from " + o.namesFile() : " under " + o.prefix() + "train/", w.batch(),
        o.readThreads(), trim(o.computeSeconds()), MlperfTable.pct(w.auThreshold()), o.epochs(),
        o.epochs() == 1 ? "" : "s", o.stepsPerEpoch() > 0 ? o.stepsPerEpoch() + " steps per epoch"
            : "steps per epoch from the dataset", o.seed());
  }

  private String resultLine(MlperfResult r) {
    ProbeResult p = r.reported();
    AuCalculator.Summary s = p.summary();
    String w = o.workload().wireName();
    String threshold = MlperfTable.pct(o.workload().auThreshold()) + "%";
    String figures = String.format(Locale.ROOT, "AU %s%%, %s samples/s, %s MiB/s", MlperfTable.pct(s.au()),
        MlperfTable.num(s.samplesPerSecond()), MlperfTable.num(s.mibPerSecond()));
    if (!o.search()) {
      return "Result: " + w + ", " + r.accelerators() + " accelerator" + (r.accelerators() == 1 ? "" : "s") + ": "
          + figures + " (threshold " + threshold + "): "
          + (p.aborted() != null ? "ABORTED" : p.pass() ? "PASS" : "FAIL");
    }
    if (r.accelerators() == 0) {
      return "Result: " + w + ": no accelerator count keeps AU >= " + threshold + "; " + p.accelerators() + ": "
          + figures;
    }
    return "Result: " + w + ": at most " + r.accelerators() + " accelerator" + (r.accelerators() == 1 ? "" : "s")
        + " keep AU >= " + threshold + ": " + figures
        + (r.atLimit() ? " (the search limit passed: more might)" : "");
  }

  private static String trim(double seconds) {
    String s = String.format(Locale.ROOT, "%.6f", seconds);
    return s.replaceAll("0+$", "").replaceAll("\\.$", "");
  }
}
