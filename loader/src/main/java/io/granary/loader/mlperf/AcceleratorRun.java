package io.granary.loader.mlperf;

import io.granary.loader.LoaderException;
import io.granary.loader.protocol.ObjectClient;
import io.granary.loader.report.OpStats;
import io.granary.loader.report.OpSummary;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Phaser;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Runs a number of emulated accelerators over the dataset for the configured epochs and computes their AU: one
 * {@link ProbeResult}. Each epoch, accelerator {@code r} gets its shard of the files, its own
 * {@link ShardReaders} and a prefetch buffer of {@link #PREFETCH_BATCHES} batches, and all of them step in lockstep
 * (a barrier after every step, as DLIO does). Runs on the caller's thread; accelerators and readers are daemon
 * threads named {@code mlperf-a3} and {@code mlperf-a3-r5}.
 */
final class AcceleratorRun {
  /** Batches a data loader may hold ready ahead of the compute: DLIO's default {@code prefetch_size}. */
  static final int PREFETCH_BATCHES = 2;

  private final MlperfOptions o;
  private final Dataset dataset;
  private final List<ObjectClient> clients;
  private final MlperfTable table;

  AcceleratorRun(MlperfOptions o, Dataset dataset, List<ObjectClient> clients, MlperfTable table) {
    this.o = o;
    this.dataset = dataset;
    this.clients = clients;
    this.table = table;
  }

  /** Steps per epoch of each of {@code n} accelerators. */
  static int steps(MlperfOptions o, Dataset d, int n) {
    return o.stepsPerEpoch() > 0 ? o.stepsPerEpoch() : d.stepsPerEpoch(n, o.batch());
  }

  /** Whether the dataset gives each of {@code n} accelerators the steps a run needs (at least 2). */
  static boolean fits(MlperfOptions o, Dataset d, int n) {
    int available = d.stepsPerEpoch(n, o.batch());
    return available >= 2 && available >= o.stepsPerEpoch();
  }

  /** The most accelerators the dataset fits, at most {@link MlperfOptions#MAX_ACCELERATORS}; 0 if not even one. */
  static int maxFitting(MlperfOptions o, Dataset d) {
    int n = 0;
    while (n < MlperfOptions.MAX_ACCELERATORS && fits(o, d, n + 1)) {
      n++;
    }
    return n;
  }

  /** A one-line {@link LoaderException} if the dataset does not fit {@code n} accelerators. */
  static void check(MlperfOptions o, Dataset d, int n) {
    if (fits(o, d, n)) {
      return;
    }
    int available = d.stepsPerEpoch(n, o.batch());
    throw new LoaderException("--accelerators " + n + ": " + d.files() + " files of " + d.samplesPerFile()
        + " samples give each of " + n + " accelerators " + available + (available == 1 ? " step" : " steps") + " of "
        + o.batch() + " samples per epoch"
        + (o.stepsPerEpoch() > 0 && available >= 2 ? ", fewer than --steps-per-epoch " + o.stepsPerEpoch()
        : "; AU needs at least 2") + " (add --files or --samples-per-file, or lower --accelerators)");
  }

  ProbeResult run(int n) throws InterruptedException {
    int steps = steps(o, dataset, n);
    OpStats gets = new OpStats("get");
    List<AuCalculator.EpochMetrics> done = new ArrayList<>();
    String aborted = null;
    long start = System.nanoTime();
    for (int epoch = 1; epoch <= o.epochs() && aborted == null; epoch++) {
      long t0 = System.nanoTime();
      List<RankEpoch> ranks = new ArrayList<>();
      aborted = epoch(n, epoch, steps, gets, ranks);
      double seconds = (System.nanoTime() - t0) / 1e9;
      OpSummary epochGets = gets.sample(seconds);
      if (aborted == null) {
        AuCalculator.EpochMetrics m = AuCalculator.epoch(ranks, o.batch());
        done.add(m);
        table.epoch(n, epoch, steps, m, o.workload().recordBytes(), epochGets, seconds);
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    AuCalculator.Summary s = AuCalculator.summarize(done, o.workload().auThreshold(), o.workload().recordBytes());
    ProbeResult r = new ProbeResult(n, steps, done, s, seconds, gets.total(seconds), aborted);
    table.probe(r, o.workload().auThreshold());
    return r;
  }

  /** One epoch; fills {@code ranks} with every accelerator's times, or returns why it was aborted. */
  private String epoch(int n, int epoch, int steps, OpStats gets, List<RankEpoch> ranks)
      throws InterruptedException {
    int[] order = dataset.order(epoch);
    Phaser barrier = new Phaser(n);
    List<SampleBuffer> buffers = new ArrayList<>();
    for (int r = 0; r < n; r++) {
      buffers.add(new SampleBuffer(PREFETCH_BATCHES * o.batch()));
    }
    AtomicReference<String> reason = new AtomicReference<>();
    Consumer<String> abort = why -> {
      if (reason.compareAndSet(null, why)) {
        barrier.forceTermination();
        buffers.forEach(b -> b.fail(why));
      }
    };
    List<Accelerator> accelerators = new ArrayList<>();
    List<ShardReaders> readers = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    long needed = (long) steps * o.batch();
    for (int r = 0; r < n; r++) {
      ShardReaders sr = new ShardReaders("mlperf-a" + r, clients.get(r % clients.size()), dataset,
          Dataset.shard(order, r, n), needed, buffers.get(r), gets, abort);
      Accelerator a = new Accelerator(steps, o.batch(), Math.round(o.computeSeconds() * 1e9), buffers.get(r), sr,
          o.readThreads(), barrier, abort);
      readers.add(sr);
      accelerators.add(a);
      Thread t = new Thread(a, "mlperf-a" + r);
      t.setDaemon(true);
      threads.add(t);
    }
    threads.forEach(Thread::start);
    for (Thread t : threads) {
      t.join();
    }
    for (ShardReaders sr : readers) {
      sr.join(); // GETs in hand at the last step finish (and count) before the next epoch
    }
    if (reason.get() != null) {
      return reason.get();
    }
    accelerators.forEach(a -> ranks.add(a.result()));
    return null;
  }
}
