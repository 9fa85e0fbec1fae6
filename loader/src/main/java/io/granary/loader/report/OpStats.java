package io.granary.loader.report;

import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Live stats of one operation (GET or PUT). Workers call {@link #ok} and {@link #error} concurrently: the
 * HdrHistogram {@link Recorder} is wait-free for writers and the counters are {@link LongAdder}s, so the hot path
 * takes no lock. One reader thread at a time calls {@link #sample} to move the interval into the totals.
 */
public final class OpStats {
  /** Latency histograms record microseconds with 3 significant digits, resizing as larger values arrive. */
  static final int DIGITS = 3;

  private final String op;
  private final Recorder recorder = new Recorder(DIGITS);
  private final LongAdder bytes = new LongAdder();
  private final LongAdder errors = new LongAdder();
  private final LongAdder verified = new LongAdder();

  // Reader side (the thread calling sample()): the interval histogram is recycled between samples.
  private Histogram interval;
  private final Histogram total = new Histogram(DIGITS);
  private long bytesSeen;
  private long errorsSeen;

  public OpStats(String op) {
    this.op = op;
  }

  public String op() {
    return op;
  }

  /** One successful operation of {@code nbytes} that took {@code micros}. */
  public void ok(long micros, long nbytes) {
    recorder.recordValue(Math.max(1, micros));
    bytes.add(nbytes);
  }

  public void error() {
    errors.increment();
  }

  /** One GET whose body was checked (see docs/loader.md). */
  public void verifiedOne() {
    verified.increment();
  }

  /**
   * What happened since the last call, as a summary whose duration is {@code seconds}; the totals grow by it.
   * The sums are read, never reset, so a concurrent add is counted in this interval or the next, never lost.
   */
  public synchronized OpSummary sample(double seconds) {
    interval = recorder.getIntervalHistogram(interval);
    total.add(interval);
    long b = bytes.sum();
    long e = errors.sum();
    OpSummary s = new OpSummary(op, interval.getTotalCount(), b - bytesSeen, e - errorsSeen, 0, seconds,
        interval.copy());
    bytesSeen = b;
    errorsSeen = e;
    return s;
  }

  /** Everything so far (call {@link #sample} first to include the last interval). */
  public synchronized OpSummary total(double seconds) {
    return new OpSummary(op, total.getTotalCount(), bytesSeen, errorsSeen, verified.sum(), seconds, total.copy());
  }
}
