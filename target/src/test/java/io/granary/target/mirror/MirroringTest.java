package io.granary.target.mirror;

import static io.granary.target.mirror.MirrorFixture.content;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.ObjectLocation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Mirroring} assembled over a real store: commits queue copies, reads fall back, walks add copies. */
class MirroringTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir
  Path tmp;
  private MirrorFixture f;
  private Mirroring mirroring;

  private void open(int copies, int workers, int capacity) throws IOException {
    f = new MirrorFixture(tmp, 3, copies);
    mirroring = new Mirroring("t1", f.store, f::current, workers, capacity);
  }

  @AfterEach
  void close() throws IOException {
    if (mirroring != null) {
      mirroring.close();
    }
    if (f != null) {
      f.close();
    }
  }

  private int holders(String name) {
    try {
      return f.holders(name).size();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private boolean allHave(Map<String, byte[]> objects, int copies) {
    return objects.keySet().stream().allMatch(n -> holders(n) == copies && recorded(n) == copies - 1);
  }

  private int recorded(String name) {
    try {
      ObjectLocation loc = f.locate(name);
      var m = loc.mountpath().meta().get(loc.key());
      return m == null ? -1 : m.copies().size();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Map<String, byte[]> putSome(int n) throws IOException {
    Map<String, byte[]> objects = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      byte[] body = content(i * 997, i);
      f.put("obj-" + i, body);
      objects.put("obj-" + i, body);
    }
    return objects;
  }

  @Test
  void commits_inAMirroredBucket_getTheirCopiesInTheBackground() throws IOException {
    open(2, Mirroring.DEFAULT_WORKERS, Mirroring.DEFAULT_CAPACITY);

    Map<String, byte[]> objects = putSome(20);

    await().atMost(WAIT).until(() -> allHave(objects, 2));
    assertThat(mirroring.stats().made()).isEqualTo(20);
    assertThat(mirroring.stats().failures()).isZero();
    await().atMost(WAIT).until(() -> mirroring.queueDepth() == 0);
  }

  @Test
  void commits_inAnUnmirroredBucket_queueNothing() throws IOException {
    open(1, 1, 16);

    Map<String, byte[]> objects = putSome(5);

    assertThat(mirroring.queueDepth()).isZero();
    assertThat(allHave(objects, 1)).isTrue();
    assertThat(mirroring.stats().made()).isZero();
  }

  @Test
  void read_ofALostOrUnreadableMainFile_servesTheCopy_andRestoresTheMain() throws IOException {
    open(2, 1, 16);
    Map<String, byte[]> objects = putSome(3);
    await().atMost(WAIT).until(() -> allHave(objects, 2));
    Path missing = f.locate("obj-1").file();
    Path unreadable = f.locate("obj-2").file();
    Files.delete(missing);
    Files.delete(unreadable);
    Files.createDirectory(unreadable); // opens, but reads fail: EISDIR

    assertThat(f.read("obj-1")).isEqualTo(objects.get("obj-1"));
    assertThat(f.read("obj-2")).isEqualTo(objects.get("obj-2"));

    assertThat(mirroring.stats().fallbackReads()).isEqualTo(2);
    await().atMost(WAIT).until(() -> Files.isRegularFile(missing) && mirroring.stats().restoredMain() >= 1);
    assertThat(Files.readAllBytes(missing)).isEqualTo(objects.get("obj-1"));
    await().atMost(WAIT).until(() -> Files.isRegularFile(unreadable) && mirroring.stats().restoredMain() == 2);
    assertThat(Files.readAllBytes(unreadable)).isEqualTo(objects.get("obj-2"));
    assertThat(allHave(objects, 2)).isTrue();
  }

  @Test
  void changedSetting_walksTheBucket_addingThenRemovingCopies() throws IOException {
    open(1, 2, 64);
    Map<String, byte[]> objects = putSome(12);
    Map<String, BucketProps> before = Map.of(f.bucket.bucket().key(), f.bucket);

    f.setCopies(3);
    mirroring.bucketsChanged(before, List.of(f.bucket));
    await().atMost(WAIT).until(() -> allHave(objects, 3));
    f.setCopies(2);
    mirroring.bucketsChanged(Map.of(f.bucket.bucket().key(), f.bucket.withProtection(
        f.bucket.protection().with(Map.of("mirror.copies", "3")))), List.of(f.bucket));

    await().atMost(WAIT).until(() -> allHave(objects, 2));
    assertThat(mirroring.stats().dropped()).isEqualTo(12);
    await().atMost(WAIT).until(() -> mirroring.walks().get(f.bucket.bucket().key()) != null
        && !mirroring.walks().get(f.bucket.bucket().key()).running());
    assertThat(mirroring.walks().get(f.bucket.bucket().key()).examined()).isGreaterThanOrEqualTo(12);
    for (Map.Entry<String, byte[]> e : objects.entrySet()) {
      assertThat(f.read(e.getKey())).isEqualTo(e.getValue());
    }
  }

  @Test
  void aFullQueue_leavesObjectsToAWalk_andEveryObjectGetsItsCopies() throws IOException {
    open(2, 1, 1);

    Map<String, byte[]> objects = putSome(40);

    await().atMost(WAIT).until(() -> allHave(objects, 2));
    assertThat(mirroring.stats().failures()).isZero();
  }

  @Test
  void start_walksMirroredBuckets_forCopiesAStopLeftUnmade() throws IOException {
    open(1, 1, 16);
    Map<String, byte[]> objects = putSome(6); // committed while the bucket asked for one copy: none queued
    f.setCopies(2);

    mirroring.bucketsChanged(null, List.of(f.bucket));

    await().atMost(WAIT).until(() -> allHave(objects, 2));
    for (Mountpath mp : f.store.mountpaths()) {
      try (var work = Files.list(mp.workDir())) {
        assertThat(work.count()).isZero();
      }
    }
  }
}
