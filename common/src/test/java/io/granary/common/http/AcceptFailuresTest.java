package io.granary.common.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AcceptFailuresTest {
  @Test
  void aFailedAccept_isCounted_pausesAcceptingForASecond_andIsNotPassedOn() throws Exception {
    EdgeCounters counters = new EdgeCounters();
    EmbeddedChannel ch = new EmbeddedChannel(new AcceptFailures("p1", counters));

    ch.pipeline().fireExceptionCaught(new IOException("accept(..) failed: Too many open files"));
    ch.pipeline().fireExceptionCaught(new IOException("accept(..) failed: Too many open files"));

    ch.checkException(); // consumed here: nothing reaches the tail of the pipeline
    assertThat(counters.acceptFailures()).isEqualTo(2);
    assertThat(ch.config().isAutoRead()).as("paused").isFalse();
    ch.advanceTimeBy(AcceptFailures.PAUSE_MILLIS, TimeUnit.MILLISECONDS);
    ch.runScheduledPendingTasks();
    assertThat(ch.config().isAutoRead()).as("accepting again after the pause").isTrue();
  }
}
