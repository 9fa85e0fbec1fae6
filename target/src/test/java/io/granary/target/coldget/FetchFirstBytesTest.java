package io.granary.target.coldget;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The fetch holds back after its first piece until the GETs streaming from it have their first bytes out. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FetchFirstBytesTest {
  private final Fetch fetch = new Fetch(null, null, null);

  @Test
  void waitsUntilEveryJoinedGetHasSentItsFirstBytes() throws Exception {
    fetch.expectFirstBytes();
    fetch.expectFirstBytes();
    CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> await(60_000));
    fetch.firstBytesSent();
    Thread.sleep(50);
    assertThat(waiting).as("one of two GETs still owes its first bytes").isNotDone();
    fetch.firstBytesSent();
    waiting.get(20, TimeUnit.SECONDS);
  }

  @Test
  void doesNotWaitWithoutGets_andAClientThatNeverSendsOnlyDelaysItByTheBound() throws Exception {
    await(60_000); // a prefetch job's fetch: no GET joined
    fetch.expectFirstBytes();
    await(20); // the GET never sends (a slow or vanished client): the fetch goes on after the bound
  }

  @Test
  void extraSignalsDoNotCancelALaterGet() throws Exception {
    fetch.expectFirstBytes();
    fetch.firstBytesSent();
    fetch.firstBytesSent(); // e.g. a response that ended after its first bytes
    fetch.expectFirstBytes();
    CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> await(60_000));
    Thread.sleep(50);
    assertThat(waiting).isNotDone();
    fetch.firstBytesSent();
    waiting.get(20, TimeUnit.SECONDS);
  }

  private void await(long millis) {
    try {
      fetch.awaitFirstBytes(millis);
    } catch (java.io.InterruptedIOException e) {
      throw new IllegalStateException(e);
    }
  }
}
