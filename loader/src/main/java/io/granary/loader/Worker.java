package io.granary.loader;

import io.granary.loader.protocol.ObjectClient;
import io.granary.loader.report.OpStats;
import io.granary.loader.workload.Content;
import io.granary.loader.workload.NamePool;
import io.granary.loader.workload.Names;
import io.granary.loader.workload.ShuffledRounds;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * One load thread: until told to stop, picks PUT or GET by {@code --pct-put}, runs it against its endpoint and
 * records latency (request sent to last byte read, microseconds), bytes or the error. Its own seeded
 * {@link Random} makes the sequence of sizes and choices repeatable; its {@link BodyReader} holds the only
 * buffers, so a request allocates nothing object-sized. GETs take the next name of the run's shared
 * {@link ShuffledRounds} (unique GETs, epochs) or a uniformly random one ({@code --unique-gets=false}).
 */
final class Worker implements Runnable {
  /**
   * What the workers of a run share.
   *
   * @param rounds the shared GET order; null: uniform random picks from {@code pool}
   * @param stop set when the run's time is up
   * @param putBudget PUTs left in the run's {@code --max-puts} budget; unused when the budget is 0
   * @param errors takes one line per failed operation
   * @param roundDone called by the worker that finishes the last read of a round (an epoch)
   */
  record Shared(LoadOptions o, NamePool pool, ShuffledRounds rounds, OpStats gets, OpStats puts, AtomicBoolean stop,
      AtomicLong putBudget, Consumer<String> errors, Consumer<ShuffledRounds.Round> roundDone) {}

  private final int index;
  private final ObjectClient client;
  private final Shared s;
  private final LoadOptions o;
  private final Random random;
  private final BodyReader reader;
  private long seq;

  Worker(int index, ObjectClient client, Shared shared) {
    this.index = index;
    this.client = client;
    this.s = shared;
    this.o = shared.o();
    this.random = new Random(o.seed() * 1_000_003L + o.loaderId() * 10_007L + index);
    this.reader = new BodyReader(o.verify(), o.seed());
  }

  @Override
  public void run() {
    NamePool pool = s.pool();
    while (!s.stop().get()) {
      boolean put = o.pctPut() > 0 && (pool.size() == 0 || random.nextInt(100) < o.pctPut());
      if (put && o.maxPuts() > 0 && s.putBudget().getAndDecrement() <= 0) {
        put = false;
        if (o.pctPut() == 100 || pool.size() == 0) {
          return; // nothing left to do: the budget is spent and there is nothing (else) to read
        }
      }
      if (put) {
        put();
      } else if (!get()) {
        return; // every epoch has been handed out
      }
    }
  }

  private void put() {
    long size = o.minSize() + (o.maxSize() == o.minSize() ? 0 : random.nextLong(o.maxSize() - o.minSize() + 1));
    String name = Names.putName(o.loaderId(), index, seq++);
    long seed = Content.objectSeed(o.seed(), name);
    long t0 = System.nanoTime();
    try {
      client.put(name, size, () -> Content.stream(seed, size));
      s.puts().ok((System.nanoTime() - t0) / 1000, size);
      s.pool().add(new NamePool.Entry(name, size));
    } catch (Exception e) {
      s.puts().error();
      s.errors().accept("PUT " + name + ": " + message(e));
    }
  }

  /** One GET, if there is a name to read; false once the run's epochs are all handed out. */
  private boolean get() {
    NamePool.Entry e;
    ShuffledRounds.Round round = null;
    if (s.rounds() != null) {
      ShuffledRounds.Pick p = s.rounds().next();
      if (p == null) {
        return !s.rounds().exhausted(); // not exhausted: a mixed run's first PUTs are still in flight
      }
      e = p.entry();
      round = p.round();
    } else {
      e = s.pool().pick(random);
      if (e == null) {
        return true; // only while a mixed run's first PUTs are in flight
      }
    }
    long t0 = System.nanoTime();
    long n = 0;
    boolean ok = false;
    try {
      n = client.get(e.name(), o.readOff(), o.readLen(),
          (in, etag) -> reader.read(in, etag, e, o.readOff(), o.readLen()));
      s.gets().ok((System.nanoTime() - t0) / 1000, n);
      if (reader.verified()) {
        s.gets().verifiedOne();
      }
      ok = true;
    } catch (Exception ex) {
      s.gets().error();
      s.errors().accept("GET " + e.name() + ": " + message(ex));
    }
    if (round != null && round.finish(n, ok)) {
      s.roundDone().accept(round);
    }
    return true;
  }

  static String message(Throwable e) {
    String m = e.getMessage();
    return (m == null || m.isBlank() ? e.getClass().getSimpleName() : m.lines().findFirst().orElse(m));
  }
}
