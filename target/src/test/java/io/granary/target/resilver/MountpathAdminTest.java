package io.granary.target.resilver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.granary.common.error.ApiException;
import io.granary.common.error.BadRequestException;
import io.granary.common.error.ConflictException;
import io.granary.common.error.MountpathNotFoundException;
import io.granary.common.mountpath.MountpathsReport;
import io.granary.target.storage.FileOps;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.MountpathState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The administration's answers to bad or conflicting requests, and what it keeps across restarts. */
class MountpathAdminTest {
  @TempDir
  Path tmp;
  private ResilverFixture f;

  @AfterEach
  void close() throws IOException {
    if (f != null) {
      f.close();
    }
  }

  private MountpathsReport.Mountpath entry(String name) {
    return f.report().mountpaths().stream().filter(m -> m.path().equals(f.path(name).toString())).findFirst()
        .orElse(null);
  }

  private void awaitResilverEnded() {
    await().atMost(Duration.ofSeconds(30)).until(() -> f.resilverEnded());
  }

  /** {@code call} fails with {@code type} and the mountpaths are as before. */
  private void assertRefused(Class<? extends ApiException> type, ThrowingCall call) {
    MountpathsReport before = f.report();
    assertThatThrownBy(call::run).isInstanceOf(type);
    assertThat(f.report().mountpaths()).isEqualTo(before.mountpaths());
  }

  @FunctionalInterface
  private interface ThrowingCall {
    void run() throws Exception;
  }

  @Test
  void attach_badPaths_are400() throws IOException {
    f = new ResilverFixture(tmp, "mp1", "mp2");
    assertRefused(BadRequestException.class, () -> f.admin.attach("relative/dir"));
    assertRefused(BadRequestException.class, () -> f.admin.attach(""));
    assertRefused(BadRequestException.class, () -> f.admin.attach(tmp.resolve("no/such/parent/mp").toString()));
    Files.writeString(tmp.resolve("a-file"), "x");
    assertRefused(BadRequestException.class, () -> f.admin.attach(tmp.resolve("a-file").toString()));
    assertThat(tmp.resolve("no")).doesNotExist();
  }

  @Test
  void attach_aMountpathInUse_is409() throws IOException {
    f = new ResilverFixture(tmp, "mp1", "mp2");
    assertRefused(ConflictException.class, () -> f.admin.attach(f.path("mp1").toString()));
    assertRefused(ConflictException.class, () -> f.admin.attach(f.path("mp1").resolve("inner").toString()));
    assertRefused(ConflictException.class, () -> f.admin.attach(tmp.toString())); // would hold mp1 and mp2

    Path other = tmp.resolve("other");
    Files.createDirectories(other.resolve(".granary"));
    Files.writeString(other.resolve(".granary").resolve("node-id"), "t9\n");
    assertRefused(ConflictException.class, () -> f.admin.attach(other.toString()));

    try (Mountpath held = Mountpath.open(tmp.resolve("held"))) { // as another target process holds it
      assertRefused(ConflictException.class, () -> f.admin.attach(held.root().toString()));
    }
  }

  @Test
  void detachOrDisable_unknownMountpath_is404() throws IOException {
    f = new ResilverFixture(tmp, "mp1", "mp2");
    assertRefused(MountpathNotFoundException.class, () -> f.admin.detach(tmp.resolve("nope").toString()));
    assertRefused(MountpathNotFoundException.class, () -> f.admin.disable(tmp.resolve("nope").toString()));
  }

  @Test
  void detachOrDisable_theLastAvailableMountpath_is409() throws IOException {
    f = new ResilverFixture(tmp, "mp1", "mp2");
    f.admin.detach(f.path("mp2").toString());
    awaitResilverEnded();

    assertRefused(ConflictException.class, () -> f.admin.detach(f.path("mp1").toString()));
    assertRefused(ConflictException.class, () -> f.admin.disable(f.path("mp1").toString()));
    assertThat(entry("mp1").state()).isEqualTo("available");
  }

  @Test
  void attach_newDirectory_isAvailableAtOnce_writesNodeIdAndClusterMetadata_andSurvivesRestart()
      throws IOException {
    f = new ResilverFixture(tmp, "mp1", "mp2");
    f.putMany(50);

    MountpathsReport r = f.admin.attach(f.path("mp3").toString());

    assertThat(r.mountpaths()).filteredOn(m -> m.path().endsWith("mp3")).singleElement().satisfies(m -> {
      assertThat(m.state()).isEqualTo("available");
      assertThat(m.attachedAtRunTime()).isTrue();
    });
    assertThat(f.path("mp3").resolve(".granary").resolve("node-id")).hasContent("t1");
    assertThat(f.path("mp3").resolve(".granary").resolve("cluster-metadata.json")).exists();
    assertThat(f.path("mp3").resolve(".granary").resolve(VolumeFiles.FILE)).exists();
    awaitResilverEnded();

    f.restart("mp1", "mp2");

    assertThat(entry("mp3")).isNotNull().satisfies(m -> {
      assertThat(m.state()).isEqualTo("available");
      assertThat(m.attachedAtRunTime()).isTrue();
      assertThat(m.objects()).isPositive();
    });
    assertThat(f.report().resilver().state()).as("nothing changed").isEqualTo(MountpathsReport.Resilver.IDLE);
  }

  @Test
  void disable_isRememberedAcrossRestart_untilAttachedAgain() throws IOException {
    f = new ResilverFixture(tmp, "mp1", "mp2", "mp3");
    List<String> names = f.putMany(90);
    Mountpath mp3 = f.mountpath("mp3");
    long onMp3 = mp3.usage().objectCount();
    List<String> slicesLost = new java.util.concurrent.CopyOnWriteArrayList<>();
    f.admin.onSlicesLost(slicesLost::add);

    f.admin.disable(f.path("mp3").toString());
    assertThat(entry("mp3").state()).isEqualTo("disabled");
    assertThat(entry("mp3").reason()).contains("operator");
    assertThat(slicesLost).as("owners are asked to audit what it held").singleElement().asString()
        .contains("mp3").contains("disabled");
    awaitResilverEnded();
    await().atMost(Duration.ofSeconds(10)).until(() -> mp3.meta().isClosed());
    assertThat(names.stream().filter(n -> {
      try {
        return f.store.stat(ResilverFixture.BUCKET, n) == null;
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }).count()).as("its objects are not read").isEqualTo(onMp3);

    f.restart("mp1", "mp2", "mp3");
    assertThat(entry("mp3").state()).as("still disabled after a restart").isEqualTo("disabled");
    List<java.nio.file.Path> slicesBack = new java.util.concurrent.CopyOnWriteArrayList<>();
    f.admin.onSlicesBack(mp -> slicesBack.add(mp.root()));

    f.admin.attach(f.path("mp3").toString());
    assertThat(slicesBack).as("slices sent again while it was away are looked for").containsExactly(f.path("mp3"));
    awaitResilverEnded();
    assertThat(entry("mp3").state()).isEqualTo("available");
    for (String n : names) {
      assertThat(f.read(n)).as(n).isEqualTo(ResilverFixture.content(n));
    }
  }

  @Test
  void detach_attachingMountpath_is409_untilItIsChecked() throws IOException {
    f = new ResilverFixture(tmp, "mp1", "mp2");
    f.store.updateMountpaths(s -> s.with(s.entry(f.path("mp2")).orElseThrow()
        .withState(MountpathState.ATTACHING, null))); // back with objects, not checked yet

    assertRefused(ConflictException.class, () -> f.admin.detach(f.path("mp2").toString()));
    assertThat(entry("mp2").state()).isEqualTo("attaching");
  }

  @Test
  void detach_disabledMountpath_forgetsIt() throws IOException {
    f = new ResilverFixture(tmp, "mp1", "mp2", "mp3");
    f.admin.disable(f.path("mp3").toString());
    awaitResilverEnded();

    f.admin.detach(f.path("mp3").toString());

    assertThat(entry("mp3")).isNull();
    f.restart("mp1", "mp2");
    assertThat(entry("mp3")).isNull();
  }

  @Test
  void detach_thenRestartWithTheSameFlags_staysOut_untilAttachedAgain() throws IOException {
    f = new ResilverFixture(tmp, "mp1", "mp2");
    List<String> names = f.putMany(40);
    f.admin.detach(f.path("mp2").toString());
    await().atMost(Duration.ofSeconds(30)).until(() -> entry("mp2") == null && f.resilverEnded());
    f.close();
    FileOps.deleteTree(f.path("mp2")); // its disk was taken out

    f.restart("mp1", "mp2"); // a pod restarts with the flags it always had

    assertThat(entry("mp2")).isNull();
    assertThat(f.path("mp2")).as("not created again").doesNotExist();
    assertThat(f.report().resilver().state()).as("nothing changed").isEqualTo(MountpathsReport.Resilver.IDLE);
    for (String n : names) {
      assertThat(f.read(n)).as(n).isEqualTo(ResilverFixture.content(n));
    }
    f.admin.attach(f.path("mp2").toString()); // a new disk in its place
    awaitResilverEnded();
    f.restart("mp1", "mp2");
    assertThat(entry("mp2").state()).isEqualTo("available");
  }

  @Test
  void restart_newestRecordOnlyOnMountpathsAttachedAtRunTime_isFoundThroughTheOlderOnes() throws IOException {
    f = new ResilverFixture(tmp, "mp1", "mp2");
    List<String> names = f.putMany(60);
    f.admin.attach(f.path("mp3").toString());
    f.admin.attach(f.path("mp4").toString());
    f.admin.detach(f.path("mp1").toString());
    await().atMost(Duration.ofSeconds(30)).until(() -> entry("mp1") == null && f.resilverEnded());
    f.admin.disable(f.path("mp2").toString());
    awaitResilverEnded();
    List<String> kept = names.stream().filter(n -> {
      try {
        return f.store.stat(ResilverFixture.BUCKET, n) != null;
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }).toList();

    f.restart("mp1", "mp2"); // the flags name only mountpaths whose copies of the record are old

    assertThat(entry("mp1")).isNull();
    assertThat(entry("mp2").state()).isEqualTo("disabled");
    assertThat(entry("mp3").state()).isEqualTo("available");
    assertThat(entry("mp4").state()).isEqualTo("available");
    assertThat(f.report().resilver().state()).as("nothing changed").isEqualTo(MountpathsReport.Resilver.IDLE);
    for (String n : kept) {
      assertThat(f.read(n)).as(n).isEqualTo(ResilverFixture.content(n));
    }
  }

  @Test
  void start_recordedMountpathMissing_isDisabled_andTheTargetStartsWithTheOthers() throws IOException {
    f = new ResilverFixture(tmp, "mp1", "mp2");
    List<String> names = f.putMany(40);
    f.close();
    FileOps.deleteTree(f.path("mp2")); // the disk did not come back
    f.restart("mp1", "mp2");

    assertThat(entry("mp2").state()).isEqualTo("disabled");
    assertThat(entry("mp2").reason()).contains("failed at start");
    assertThat(f.path("mp2")).as("not created again on whatever holds its parent").doesNotExist();
    assertThat(f.store.mountpathSet().available()).hasSize(1);
    assertThat(names.stream().filter(n -> {
      try {
        return f.read(n) != null;
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    })).isNotEmpty();
  }

  @Test
  void start_newFlagHoldingObjects_joinsAsAttaching_thenAvailable() throws IOException {
    f = new ResilverFixture(tmp, "mp1", "mp2");
    f.putMany(60);
    f.restart("mp1"); // mp2 dropped, its objects are no longer served ...
    f.restart("mp1", "mp2"); // ... and it comes back: new to the record, with objects

    awaitResilverEnded();
    assertThat(f.store.mountpathSet().entry(f.path("mp2")).orElseThrow().state())
        .isEqualTo(MountpathState.AVAILABLE);
    for (int i = 0; i < 60; i++) {
      assertThat(f.read("obj-" + i)).isEqualTo(ResilverFixture.content("obj-" + i));
      assertThat(f.holders("obj-" + i)).hasSize(1);
    }
  }
}
