package io.granary.loader;

import io.granary.loader.protocol.ObjectClient;
import io.granary.loader.report.OpStats;
import io.granary.loader.workload.Content;
import io.granary.loader.workload.NamePool;
import io.granary.loader.workload.Names;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * One load thread: until told to stop, picks PUT or GET by {@code --pct-put}, runs it against its endpoint and
 * records latency (request sent to last byte read, microseconds), bytes or the error. Its own seeded
 * {@link Random} makes the sequence of sizes and choices repeatable; its {@link BodyReader} holds the only
 * buffers, so a request allocates nothing object-sized.
 */
final class Worker implements Runnable {
  private final int index;
  private final LoadOptions o;
  private final ObjectClient client;
  private final NamePool pool;
  private final OpStats gets;
  private final OpStats puts;
  private final AtomicBoolean stop;
  /** PUTs left in the run's {@code --max-puts} budget, shared by all workers; unused when the budget is 0. */
  private final AtomicLong putBudget;
  private final Consumer<String> errors;
  private final Random random;
  private final BodyReader reader;
  private long seq;

  Worker(int index, LoadOptions o, ObjectClient client, NamePool pool, OpStats gets, OpStats puts,
      AtomicBoolean stop, AtomicLong putBudget, Consumer<String> errors) {
    this.index = index;
    this.o = o;
    this.client = client;
    this.pool = pool;
    this.gets = gets;
    this.puts = puts;
    this.stop = stop;
    this.putBudget = putBudget;
    this.errors = errors;
    this.random = new Random(o.seed() * 1_000_003L + o.loaderId() * 10_007L + index);
    this.reader = new BodyReader(o.verify(), o.seed());
  }

  @Override
  public void run() {
    while (!stop.get()) {
      boolean put = o.pctPut() > 0 && (pool.size() == 0 || random.nextInt(100) < o.pctPut());
      if (put && o.maxPuts() > 0 && putBudget.getAndDecrement() <= 0) {
        put = false;
        if (o.pctPut() == 100 || pool.size() == 0) {
          return; // nothing left to do: the budget is spent and there is nothing (else) to read
        }
      }
      if (put) {
        put();
      } else {
        get();
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
      puts.ok((System.nanoTime() - t0) / 1000, size);
      pool.add(new NamePool.Entry(name, size));
    } catch (Exception e) {
      puts.error();
      errors.accept("PUT " + name + ": " + message(e));
    }
  }

  private void get() {
    NamePool.Entry e = pool.pick(random);
    if (e == null) {
      return; // only while a mixed run's first PUTs are in flight
    }
    long t0 = System.nanoTime();
    try {
      long n = client.get(e.name(), (in, etag) -> reader.read(in, etag, e));
      gets.ok((System.nanoTime() - t0) / 1000, n);
      if (reader.verified()) {
        gets.verifiedOne();
      }
    } catch (Exception ex) {
      gets.error();
      errors.accept("GET " + e.name() + ": " + message(ex));
    }
  }

  static String message(Throwable e) {
    String m = e.getMessage();
    return (m == null || m.isBlank() ? e.getClass().getSimpleName() : m.lines().findFirst().orElse(m));
  }
}
