package io.granary.target.coldget;

import io.granary.clustermap.bucket.Provider;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of a target's cold GETs and cache hits, per {@link Provider} of the remote bucket (the index is the
 * provider's ordinal, so a count is one array read and a {@link LongAdder} increment: hits are counted per request
 * on the event loops). Prometheus reads them at scrape time (io.granary.target.metrics). Fetch durations go to
 * the {@link Timings} given with {@link #timeWith}, which keeps the histograms.
 */
public final class ColdStats {
  /** Told of each fetch's durations, on the cold pool thread that ran it; must not block. */
  public interface Timings {
    Timings NONE = new Timings() {
      @Override
      public void firstByte(Provider provider, long nanos) {}

      @Override
      public void fetched(Provider provider, long nanos) {}
    };

    /** The backend's first answer (status and headers) arrived {@code nanos} after the fetch started. */
    void firstByte(Provider provider, long nanos);

    /** A fetch was committed {@code nanos} after it started. */
    void fetched(Provider provider, long nanos);
  }

  private static final int PROVIDERS = Provider.values().length;

  private final LongAdder[] fetches = adders();
  private final LongAdder[] bytes = adders();
  private final LongAdder[] coalesced = adders();
  private final LongAdder[] loopReads = adders();
  private final LongAdder[] checksumErrors = adders();
  private final LongAdder[] unverified = adders();
  private final LongAdder[] failures = adders();
  private final LongAdder[] revalidations = adders();
  private final LongAdder[] versionChanges = adders();
  private final LongAdder[] hits = adders();
  private final LongAdder[] misses = adders();
  private volatile Timings timings = Timings.NONE;

  /** Sends fetch durations to {@code t} from now on. */
  public void timeWith(Timings t) {
    timings = t;
  }

  void firstByte(Provider p, long elapsedNanos) {
    timings.firstByte(p, elapsedNanos);
  }

  void fetched(Provider p, long size, long elapsedNanos) {
    // No order here makes a scrape consistent: the registry reads its collectors in no fixed order.
    timings.fetched(p, elapsedNanos);
    bytes[p.ordinal()].add(size);
    fetches[p.ordinal()].increment();
  }

  void joined(Provider p) {
    coalesced[p.ordinal()].increment();
  }

  /** A fetch's first remote read was sent and answered on the asking GET's event loop. */
  void loopRead(Provider p) {
    loopReads[p.ordinal()].increment();
  }

  void checksumError(Provider p) {
    checksumErrors[p.ordinal()].increment();
  }

  /** A fetch committed content the remote offered no checksum to compare with (nothing vouched for it). */
  void committedUnverified(Provider p) {
    unverified[p.ordinal()].increment();
  }

  void failed(Provider p) {
    failures[p.ordinal()].increment();
  }

  void revalidated(Provider p, boolean changed) {
    revalidations[p.ordinal()].increment();
    if (changed) {
      versionChanges[p.ordinal()].increment();
    }
  }

  /** A GET of a remote bucket's object was served from the cached copy. */
  void hit(Provider p) {
    hits[p.ordinal()].increment();
  }

  /** A GET of a remote bucket's object needed a fetch (not cached, stale, or evicted meanwhile). */
  void miss(Provider p) {
    misses[p.ordinal()].increment();
  }

  /** Objects fetched and committed. */
  public long fetches(Provider p) {
    return fetches[p.ordinal()].sum();
  }

  /** Bytes of the objects fetched and committed. */
  public long bytes(Provider p) {
    return bytes[p.ordinal()].sum();
  }

  /** Requests that joined a fetch already in flight instead of starting one. */
  public long coalesced(Provider p) {
    return coalesced[p.ordinal()].sum();
  }

  /** Fetches whose first remote read was sent and answered on the asking GET's event loop. */
  public long loopReads(Provider p) {
    return loopReads[p.ordinal()].sum();
  }

  /** Fetches whose content did not match the remote's checksum (nothing cached). */
  public long checksumErrors(Provider p) {
    return checksumErrors[p.ordinal()].sum();
  }

  /** Objects fetched and committed with nothing from the remote to verify them against. */
  public long unverified(Provider p) {
    return unverified[p.ordinal()].sum();
  }

  public long failures(Provider p) {
    return failures[p.ordinal()].sum();
  }

  public long revalidations(Provider p) {
    return revalidations[p.ordinal()].sum();
  }

  public long versionChanges(Provider p) {
    return versionChanges[p.ordinal()].sum();
  }

  public long hits(Provider p) {
    return hits[p.ordinal()].sum();
  }

  public long misses(Provider p) {
    return misses[p.ordinal()].sum();
  }

  private static LongAdder[] adders() {
    LongAdder[] a = new LongAdder[PROVIDERS];
    for (int i = 0; i < a.length; i++) {
      a[i] = new LongAdder();
    }
    return a;
  }
}
