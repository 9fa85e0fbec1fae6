package io.granary.loader;

import io.granary.loader.protocol.ObjectClient;
import io.granary.loader.protocol.ObjectClients;
import io.granary.loader.report.OpStats;
import io.granary.loader.report.OpSummary;
import io.granary.loader.report.ResultJson;
import io.granary.loader.report.RunResult;
import io.granary.loader.report.StatsTable;
import io.granary.loader.workload.NamePool;
import io.granary.loader.workload.Names;
import io.granary.loader.workload.ShuffledRounds;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One run of {@code granary load}: probe every endpoint, gather the names to read, run the workers for the
 * duration (or the PUT budget) while printing a stats row per interval, then print the summary, write the JSON
 * and, with {@code --cleanup}, delete what the run wrote. Runs on the caller's thread; workers are platform
 * threads named {@code loader-N}, the stats rows come from one scheduler thread.
 */
public final class LoadRunner {
  /** Distinct error lines shown on stderr before the rest are only counted. */
  private static final int ERRORS_SHOWN = 10;

  private final LoadOptions o;
  private final PrintStream out;
  private final PrintStream err;
  private final OpStats gets = new OpStats("get");
  private final OpStats puts = new OpStats("put");
  private final AtomicInteger errorsShown = new AtomicInteger();

  public LoadRunner(LoadOptions o, PrintStream out, PrintStream err) {
    this.o = o;
    this.out = out;
    this.err = err;
  }

  /** Runs to the end; a {@link LoaderException} before any load if an endpoint, bucket or name is unusable. */
  public RunResult run() throws Exception {
    List<ObjectClient> clients = new ArrayList<>();
    try {
      for (int i = 0; i < o.endpoints().size(); i++) {
        int share = (o.workers() + o.endpoints().size() - 1 - i) / o.endpoints().size();
        clients.add(ObjectClients.open(o, o.endpoints().get(i), share));
      }
      List<String> initial = initialNames();
      for (ObjectClient c : clients) {
        c.probe(initial.isEmpty() ? null : initial.get(0));
      }
      if (o.namesFile() == null && o.pctPut() == 0) {
        initial = Names.forLoader(clients.get(0).list(), o.loaderId(), o.loaders());
      }
      if (o.pctPut() == 0 && initial.isEmpty()) {
        throw new LoaderException(o.namesFile() != null ? "--names " + o.namesFile() + " leaves no names for loader "
            + o.loaderId() + " of " + o.loaders() : "bucket '" + o.bucket() + "' is empty: nothing to GET (add "
            + "--pct-put or --names)");
      }
      configuration(initial.size());
      RunResult r = load(clients, new NamePool(initial));
      if (o.jsonFile() != null) {
        ResultJson.write(r, o.jsonFile());
      }
      return r;
    } finally {
      clients.forEach(ObjectClient::close);
    }
  }

  /** The names given up front (--names, split for this loader); the listing comes after the probe. */
  private List<String> initialNames() {
    return o.namesFile() == null ? List.of() : Names.forLoader(Names.read(o.namesFile()), o.loaderId(), o.loaders());
  }

  /** aisloader's "runtime configuration" line, so a saved log says what produced it. */
  private void configuration(int names) {
    String length = o.epochs() > 0 ? o.epochs() + " epochs" + (o.duration().isZero() ? "" : " or "
        + o.duration().toMillis() / 1000.0 + "s") : o.duration().isZero() ? "until " + o.maxPuts() + " PUTs"
        : o.duration().toMillis() / 1000.0 + "s";
    String order = o.pctPut() == 100 ? "" : o.uniqueGets() ? " (shuffled, each once per pass)" : " (uniform random)";
    String range = !o.ranged() ? "" : ", range reads of " + (o.readLen() == 0 ? "the rest" : StatsTable.bytes(
        o.readLen())) + " at " + o.readOff();
    String mix = o.pctPut() == 0 ? "no PUTs" : o.pctPut() + "% PUT of " + StatsTable.bytes(o.minSize()) + "-"
        + StatsTable.bytes(o.maxSize());
    out.printf(Locale.ROOT, "granary load: %s%s %s %s, %d workers, %s, %s, GETs from %s%s%s%s%s, "
            + "loader %d of %d, seed %d%n", o.protocol().wireName(), o.direct() ? " direct to targets" : "",
        o.endpoints(), o.bucket() == null ? "" : o.bucket(), o.workers(), length, mix,
        names > 0 ? names + " names" + (o.pctPut() > 0 ? " and the objects it PUTs" : "")
            : o.pctPut() == 100 ? "none" : "the objects it PUTs", order, range,
        o.verify() ? ", verify" : "", o.cleanup() ? ", cleanup" : "", o.loaderId(), o.loaders(), o.seed());
  }

  private RunResult load(List<ObjectClient> clients, NamePool pool) throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong budget = new AtomicLong(o.maxPuts());
    List<Thread> threads = new ArrayList<>();
    StatsTable table = new StatsTable(out);
    List<OpStats> active = active();
    // Unique GETs and epochs: one shuffled order for all workers, seeded apart per loader.
    ShuffledRounds rounds = o.pctPut() == 100 || !o.uniqueGets() ? null
        : new ShuffledRounds(pool, o.seed() * 1_000_003L + o.loaderId(), o.epochs());
    AtomicInteger epochsDone = new AtomicInteger();
    Worker.Shared shared = new Worker.Shared(o, pool, rounds, gets, puts, stop, budget, this::error, r -> {
      if (o.epochs() > 0) {
        epochsDone.incrementAndGet();
        epoch(r);
      }
    });
    long start = System.nanoTime();
    for (int i = 0; i < o.workers(); i++) {
      Worker w = new Worker(i, clients.get(i % clients.size()), shared);
      Thread t = new Thread(w, "loader-" + i);
      t.setDaemon(true);
      threads.add(t);
    }
    ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "loader-stats");
      t.setDaemon(true);
      return t;
    });
    if (!o.interval().isZero()) {
      table.header();
      long period = o.interval().toNanos();
      double seconds = period / 1e9;
      ticker.scheduleAtFixedRate(() -> {
        String time = clock(System.nanoTime() - start);
        for (OpStats s : active) {
          OpSummary row = s.sample(seconds);
          table.row(time, row, s.total((System.nanoTime() - start) / 1e9));
        }
      }, period, period, TimeUnit.NANOSECONDS);
    }
    threads.forEach(Thread::start);
    long deadline = o.duration().isZero() ? Long.MAX_VALUE : start + o.duration().toNanos();
    for (Thread t : threads) {
      long left = deadline == Long.MAX_VALUE ? 0 : deadline - System.nanoTime();
      if (deadline != Long.MAX_VALUE && left <= 0) {
        break;
      }
      t.join(deadline == Long.MAX_VALUE ? 0 : Math.max(1, left / 1_000_000));
    }
    stop.set(true);
    for (Thread t : threads) {
      t.join(); // in-flight requests finish; they count
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    ticker.shutdownNow();
    ticker.awaitTermination(5, TimeUnit.SECONDS);
    Map<String, OpSummary> ops = new LinkedHashMap<>();
    for (OpStats s : active) {
      s.sample(seconds);
      ops.put(s.op(), s.total(seconds));
    }
    RunResult r = new RunResult(seconds, ops, o.protocol().wireName(), o.bucket(), 1, o.workers());
    if (o.epochs() > 0 && epochsDone.get() < o.epochs()) {
      out.printf(Locale.ROOT, "--duration ended the run with %d of %d epochs complete%n", epochsDone.get(),
          o.epochs());
    }
    table.summary(r);
    int hidden = errorsShown.get() - ERRORS_SHOWN;
    if (hidden > 0) {
      err.println("(" + hidden + " more errors not shown)");
    }
    if (o.cleanup()) {
      cleanup(clients, pool.written());
    }
    return r;
  }

  /** The line of one finished epoch: its reads, bytes, time and throughput. */
  private void epoch(ShuffledRounds.Round r) {
    double seconds = (System.nanoTime() - r.startNanos()) / 1e9;
    out.printf(Locale.ROOT, "epoch %d of %d: %d GETs, %s in %.2fs, %s/s, %s%n", r.number() + 1, o.epochs(),
        r.size(), StatsTable.bytes(r.bytes()), seconds, StatsTable.bytes(seconds > 0 ? r.bytes() / seconds : 0),
        r.errors() == 0 ? "no errors" : r.errors() + " errors");
  }

  private List<OpStats> active() {
    List<OpStats> a = new ArrayList<>();
    if (o.pctPut() < 100) {
      a.add(gets);
    }
    if (o.pctPut() > 0) {
      a.add(puts);
    }
    return a;
  }

  private void error(String line) {
    if (errorsShown.getAndIncrement() < ERRORS_SHOWN) {
      err.println("error: " + line);
    }
  }

  /** Deletes what the run wrote, with as many threads as workers; failures are reported, not retried. */
  private void cleanup(List<ObjectClient> clients, List<NamePool.Entry> written) throws InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(o.workers());
    AtomicLong failed = new AtomicLong();
    for (int i = 0; i < written.size(); i++) {
      String name = written.get(i).name();
      ObjectClient c = clients.get(i % clients.size());
      pool.execute(() -> {
        try {
          c.delete(name);
        } catch (Exception e) {
          if (failed.getAndIncrement() < ERRORS_SHOWN) {
            err.println("error: cleanup DELETE " + name + ": " + Worker.message(e));
          }
        }
      });
    }
    pool.shutdown();
    pool.awaitTermination(Duration.ofHours(1).toMillis(), TimeUnit.MILLISECONDS);
    out.printf(Locale.ROOT, "cleanup: deleted %d of %d objects written%n", written.size() - failed.get(),
        written.size());
  }

  private static String clock(long nanos) {
    long s = nanos / 1_000_000_000L;
    return String.format(Locale.ROOT, "%02d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
  }
}
