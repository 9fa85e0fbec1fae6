package io.granary.target;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.common.http.HttpLimits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two throwaway targets on loopback move objects back and forth by real rebalances, and leave nothing behind. */
class JoinRehearsalTest {
  @TempDir
  Path dir;

  private TargetConfig config(String secret) {
    return new TargetConfig("t1", "127.0.0.1", 0, null, List.of(dir.resolve("mp")), "http://127.0.0.1:9", 1, 0, 2, 4,
        new HttpLimits(Duration.ofSeconds(30), Duration.ofSeconds(60), Duration.ofMinutes(5), 4096),
        Duration.ofSeconds(10), Duration.ofDays(1), secret, null);
  }

  @Test
  void movesObjectsBothWaysAndRemovesItsScratchDirectory() throws IOException {
    Path scratch = dir.resolve("mp/.granary").resolve(JoinRehearsal.SCRATCH);
    Files.createDirectories(scratch.resolve("a/objects/left-by-a-crash"));

    JoinRehearsal.Result r = JoinRehearsal.run(config("rehearsal-secret"), scratch, Duration.ZERO);

    assertThat(r.error()).isNull();
    assertThat(r.rounds()).isEqualTo(1); // at least one rebalance, however short the budget
    // b joined: some of the 48 objects moved to it (HRW over two targets places about half there)
    assertThat(r.moved()).isBetween(8L, 40L);
    assertThat(r.requests()).isGreaterThan(3 * 48);
    assertThat(scratch).doesNotExist();
    try (Stream<Path> left = Files.list(scratch.getParent())) {
      assertThat(left).isEmpty();
    }
  }

  @Test
  void rehearsesWithoutAClusterSecret() {
    Path scratch = dir.resolve(JoinRehearsal.SCRATCH);

    JoinRehearsal.Result r = JoinRehearsal.run(config(null), scratch, Duration.ofMillis(1));

    assertThat(r.error()).isNull();
    assertThat(r.rounds()).isEqualTo(1);
    assertThat(scratch).doesNotExist();
  }

  @Test
  void aRehearsalThatCannotStartSaysWhyAndLeavesNothing() throws IOException {
    Path blocked = dir.resolve("file");
    Files.writeString(blocked, "not a directory");

    JoinRehearsal.Result r = JoinRehearsal.run(config(null), blocked.resolve(JoinRehearsal.SCRATCH), Duration.ZERO);

    assertThat(r.error()).isNotNull();
    assertThat(r.rounds()).isZero();
    assertThat(Files.readString(blocked)).isEqualTo("not a directory");
  }
}
