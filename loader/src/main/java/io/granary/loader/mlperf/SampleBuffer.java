package io.granary.loader.mlperf;

/**
 * The prefetch buffer between one accelerator's reader threads and its compute loop: a bounded count of samples
 * that have been read. Samples carry no bytes (readers count bytes as they arrive and drop them), only their
 * number matters. Readers block while it is full; that back-pressure is what a data loader's prefetch queue does.
 *
 * <p>Ends in one of two ways: {@link #close} at the end of an epoch (readers stop producing and finish the GET in
 * hand) or {@link #fail} when the run is aborted (readers abandon their GETs; the compute loop's {@link #take}
 * throws).
 */
final class SampleBuffer {
  private final int capacity;
  private int ready;
  private boolean closed;
  private String failure;

  /** {@code capacity} must be at least a batch, or a step could never be taken. */
  SampleBuffer(int capacity) {
    this.capacity = capacity;
  }

  /**
   * Adds one sample, waiting for room. Returns the nanoseconds it waited, or -1 when the buffer was closed or
   * failed and nothing was added.
   */
  synchronized long put() throws InterruptedException {
    long waitedFrom = 0;
    while (ready >= capacity && !closed && failure == null) {
      if (waitedFrom == 0) {
        waitedFrom = System.nanoTime();
      }
      wait();
    }
    if (closed || failure != null) {
      return -1;
    }
    ready++;
    notifyAll();
    return waitedFrom == 0 ? 0 : System.nanoTime() - waitedFrom;
  }

  /** Takes {@code n} samples, waiting until that many are ready; throws {@link RunAborted} if the run failed. */
  synchronized void take(int n) throws InterruptedException {
    while (ready < n && failure == null) {
      wait();
    }
    if (failure != null) {
      throw new RunAborted(failure);
    }
    ready -= n;
    notifyAll();
  }

  /** End of the epoch: readers stop producing. */
  synchronized void close() {
    closed = true;
    notifyAll();
  }

  /** The run is aborted: readers abandon their GETs and a waiting {@link #take} throws with {@code reason}. */
  synchronized void fail(String reason) {
    if (failure == null) {
      failure = reason;
    }
    notifyAll();
  }

  synchronized boolean failed() {
    return failure != null;
  }
}
