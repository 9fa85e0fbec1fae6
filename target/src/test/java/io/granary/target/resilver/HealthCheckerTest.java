package io.granary.target.resilver;

import static io.granary.target.resilver.ResilverFixture.BUCKET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.mountpath.MountpathsReport;
import io.granary.target.storage.Mountpath;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A mountpath whose directory vanishes under a running target is disabled; the target goes on with the others. */
class HealthCheckerTest {
  @TempDir
  Path tmp;
  private ResilverFixture f;

  @BeforeEach
  void open() throws IOException {
    f = new ResilverFixture(tmp, "mp1", "mp2");
  }

  @AfterEach
  void close() throws IOException {
    f.close();
  }

  private MountpathsReport.Mountpath entry(String name) {
    return f.report().mountpaths().stream().filter(m -> m.path().equals(f.path(name).toString())).findFirst()
        .orElseThrow();
  }

  private List<String> on(List<String> names, Mountpath mp) {
    return names.stream().filter(n -> f.store.locate(BUCKET, n).mountpath() == mp).toList();
  }

  @Test
  void probe_healthyMountpath_passes() {
    assertThat(HealthChecker.probe(f.mountpath("mp1"))).isNull();
    assertThat(f.path("mp1").resolve(".granary")).isDirectoryNotContaining(p -> p.getFileName().toString()
        .startsWith("probe."));
  }

  @Test
  void probe_directoryRenamedAway_orReplaced_fails() throws IOException {
    Mountpath mp2 = f.mountpath("mp2");
    Files.move(f.path("mp2"), tmp.resolve("mp2.gone"));
    assertThat(HealthChecker.probe(mp2)).contains("cannot be read");

    Files.createDirectories(f.path("mp2").resolve(".granary")); // an empty directory in its place (unmounted disk)
    Files.createDirectories(f.path("mp2").resolve("objects"));
    assertThat(HealthChecker.probe(mp2)).contains("not the one opened");
  }

  @Test
  void readOfAVanishedMountpath_is503_thenTheMountpathIsDisabled_andTheOthersServe() throws IOException {
    List<String> names = f.putMany(60);
    Mountpath mp2 = f.mountpath("mp2");
    List<String> gone = on(names, mp2);
    List<String> kept = on(names, f.mountpath("mp1"));

    Files.move(f.path("mp2"), tmp.resolve("mp2.gone")); // the disk vanishes under the running target

    assertThatThrownBy(() -> f.read(gone.get(0))).isInstanceOf(ServiceUnavailableException.class);
    await().atMost(Duration.ofSeconds(10)).until(() -> entry("mp2").state().equals("disabled"));
    assertThat(entry("mp2").reason()).contains("failed").contains("cannot be read");
    assertThat(f.report().failedMountpaths()).isEqualTo(1);
    assertThat(f.health.failures()).isEqualTo(1);

    for (String n : kept) {
      assertThat(f.read(n)).as(n).isEqualTo(ResilverFixture.content(n));
    }
    assertThat(f.read(gone.get(0))).as("a local object that lived only there is gone").isNull();
    f.put("after-failure");
    assertThat(f.read("after-failure")).isEqualTo(ResilverFixture.content("after-failure"));
    assertThat(f.store.locate(BUCKET, "after-failure").mountpath()).isSameAs(f.mountpath("mp1"));
    await().atMost(Duration.ofSeconds(10)).until(() -> mp2.meta().isClosed());
    assertThat(f.path("mp2")).as("never created again").doesNotExist();
  }

  @Test
  void ioError_onAHealthyMountpath_leavesItAvailable() {
    Mountpath mp1 = f.mountpath("mp1");

    assertThat(f.health.check(mp1, new IOException("a client's bad input, not the disk"))).isNull();

    assertThat(entry("mp1").state()).isEqualTo("available");
    assertThat(f.health.failures()).isZero();
  }
}
