package io.granary.target.ec;

import java.util.concurrent.atomic.AtomicLong;

/** Counters of erasure coding on one target, exported as {@code granary_ec_*} (docs/metrics.md). */
public final class EcStats {
  final AtomicLong encoded = new AtomicLong();        // object versions sent to all their holders (slices)
  final AtomicLong replicated = new AtomicLong();     // object versions sent as P replicas (below the size limit)
  final AtomicLong encodeBytes = new AtomicLong();    // object bytes read by encodes
  final AtomicLong slicesSent = new AtomicLong();     // slices and replicas accepted by their holders
  final AtomicLong encodeFailures = new AtomicLong(); // encodes that did not reach every holder (left unmarked)
  final AtomicLong tooFewTargets = new AtomicLong();  // encodes skipped: fewer than D+P+1 targets in placement
  final AtomicLong rebuilds = new AtomicLong();       // objects rebuilt from slices or a replica
  final AtomicLong rebuildFailures = new AtomicLong(); // rebuilds that could not be made (fewer than D slices, ...)
  final AtomicLong rebuildsStreamed = new AtomicLong(); // GETs that streamed an object from its rebuild
  final AtomicLong overflows = new AtomicLong();      // objects not queued (queue full): left to a walk
  final AtomicLong reencoded = new AtomicLong();      // versions sent again: their holders changed with the map
  final AtomicLong resent = new AtomicLong();         // versions whose missing slices were sent to those holders only
  final AtomicLong placementWalks = new AtomicLong(); // bucket walks done after a placement change settled
  final AtomicLong slicesAudited = new AtomicLong();  // slices a holder was asked about by an audit and answered
  final AtomicLong slicesMissing = new AtomicLong();  // of those, not held whole: their objects encoded again
  final AtomicLong audits = new AtomicLong();         // bucket audits done
  final AtomicLong slicesCorrupt = new AtomicLong();  // slices held here a scrub found rotten, short or gone: removed

  public long slicesCorrupt() {
    return slicesCorrupt.get();
  }

  public long resent() {
    return resent.get();
  }

  public long slicesAudited() {
    return slicesAudited.get();
  }

  public long slicesMissing() {
    return slicesMissing.get();
  }

  public long audits() {
    return audits.get();
  }

  public long reencoded() {
    return reencoded.get();
  }

  public long placementWalks() {
    return placementWalks.get();
  }

  public long encoded() {
    return encoded.get();
  }

  public long replicated() {
    return replicated.get();
  }

  public long encodeBytes() {
    return encodeBytes.get();
  }

  public long slicesSent() {
    return slicesSent.get();
  }

  public long encodeFailures() {
    return encodeFailures.get();
  }

  public long tooFewTargets() {
    return tooFewTargets.get();
  }

  public long rebuilds() {
    return rebuilds.get();
  }

  public long rebuildFailures() {
    return rebuildFailures.get();
  }

  public long rebuildsStreamed() {
    return rebuildsStreamed.get();
  }

  public long overflows() {
    return overflows.get();
  }
}
