package io.granary.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.awaitility.Awaitility;

/**
 * Open file descriptors of a cluster's proxy and one target (Linux {@code /proc/PID/fd}), for tests that show a
 * refused or timed-out connection leaks nothing.
 */
public final class Descriptors {
  /** Connections between the nodes a health check or a pool may open meanwhile; a leak per request is far above. */
  private static final long SLACK = 2;

  private final long proxyPid;
  private final long targetPid;

  public Descriptors(long proxyPid, long targetPid) {
    this.proxyPid = proxyPid;
    this.targetPid = targetPid;
  }

  /** Open descriptors now: the proxy's, then the target's. */
  public long[] now() {
    return new long[] {count(proxyPid), count(targetPid)};
  }

  /** Waits (bounded) until both nodes hold no more descriptors than {@code baseline}, give or take the slack. */
  public void awaitBack(long[] baseline) {
    Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      long[] now = now();
      assertThat(now[0]).as("proxy descriptors (before: %d)", baseline[0]).isLessThanOrEqualTo(baseline[0] + SLACK);
      assertThat(now[1]).as("target descriptors (before: %d)", baseline[1]).isLessThanOrEqualTo(baseline[1] + SLACK);
    });
  }

  public static long count(long pid) {
    try (Stream<Path> fds = Files.list(Path.of("/proc/" + pid + "/fd"))) {
      return fds.count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
