package io.granary.loader.report;

import org.HdrHistogram.Histogram;

/**
 * Results of one operation over some seconds: an interval row, a run's totals or several loaders merged.
 *
 * @param count successful operations (the histogram holds one latency, in microseconds, for each)
 * @param bytes bytes read (GET) or written (PUT) by them
 * @param errors failed operations, verification failures included
 * @param verified GETs whose content was checked and matched
 * @param seconds the wall time these happened in
 */
public record OpSummary(String op, long count, long bytes, long errors, long verified, double seconds,
    Histogram latency) {

  public double throughput() {
    return seconds <= 0 ? 0 : bytes / seconds;
  }

  public double opsPerSecond() {
    return seconds <= 0 ? 0 : count / seconds;
  }

  public long percentile(double p) {
    return latency.getTotalCount() == 0 ? 0 : latency.getValueAtPercentile(p);
  }

  public long min() {
    return latency.getTotalCount() == 0 ? 0 : latency.getMinValue();
  }

  public long max() {
    return latency.getTotalCount() == 0 ? 0 : latency.getMaxValue();
  }

  public double mean() {
    return latency.getTotalCount() == 0 ? 0 : latency.getMean();
  }

  /** Loaders that ran side by side: counts add up, histograms merge exactly, the time is the longest. */
  public OpSummary merge(OpSummary o) {
    Histogram h = latency.copy();
    h.add(o.latency);
    return new OpSummary(op, count + o.count, bytes + o.bytes, errors + o.errors, verified + o.verified,
        Math.max(seconds, o.seconds), h);
  }
}
