package io.granary.target.resilver;

import static io.granary.target.resilver.ResilverFixture.BUCKET;
import static io.granary.target.resilver.ResilverFixture.content;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.granary.common.mountpath.MountpathsReport;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.multipart.Upload;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.MountpathState;
import io.granary.target.storage.PutOperation;
import io.granary.target.storage.PutOptions;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResilverTest {
  @TempDir
  Path tmp;
  private ResilverFixture f;

  @AfterEach
  void close() throws IOException {
    if (f != null) {
      f.close();
    }
  }

  private void awaitResilverDone() {
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
        .until(() -> MountpathsReport.Resilver.DONE.equals(f.resilverState().state()));
  }

  /** Every object is on its HRW mountpath and nowhere else, and reads back byte-exact. */
  private void assertAllInPlace(List<String> names) throws IOException {
    for (String n : names) {
      Mountpath hrw = f.store.locate(BUCKET, n).mountpath();
      assertThat(f.holders(n)).as("copies of %s", n).containsExactly(hrw);
      assertThat(f.read(n)).as(n).isEqualTo(content(n));
    }
  }

  private static long files(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return 0;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile).count();
    }
  }

  @Test
  void attach_movesAboutAThirdToTheNewMountpath_everyObjectReadableAndExact() throws IOException {
    f = new ResilverFixture(tmp, "mp1", "mp2");
    List<String> names = f.putMany(600);

    f.admin.attach(f.path("mp3").toString());
    awaitResilverDone();

    MountpathsReport.Resilver r = f.resilverState();
    assertThat(r.cause()).contains("attach");
    assertThat(r.objectsMoved()).as("about 1/3 of 600 move").isBetween(150L, 250L);
    assertThat(r.objectsToMove()).isEqualTo(r.objectsMoved());
    assertThat(r.failed()).isZero();
    assertThat(f.mountpath("mp3").usage().objectCount()).isEqualTo(r.objectsMoved());
    assertAllInPlace(names);
    assertThat(files(f.path("mp3").resolve("objects"))).isEqualTo(r.objectsMoved());
    assertThat(files(f.path("mp1").resolve("objects")) + files(f.path("mp2").resolve("objects")))
        .isEqualTo(600 - r.objectsMoved());
  }

  @Test
  void detach_movesEveryObjectOff_thenReleasesTheMountpath() throws IOException {
    f = new ResilverFixture(tmp, "mp1", "mp2", "mp3");
    List<String> names = f.putMany(300);
    long onMp2 = f.mountpath("mp2").usage().objectCount();
    Mountpath mp2 = f.mountpath("mp2");

    f.admin.detach(f.path("mp2").toString());
    assertThat(f.report().mountpaths()).filteredOn(m -> m.path().endsWith("mp2")).singleElement()
        .satisfies(m -> assertThat(m.state()).isEqualTo("detaching"));
    awaitResilverDone();

    assertThat(f.resilverState().objectsMoved()).isEqualTo(onMp2);
    assertThat(f.store.mountpathSet().entry(f.path("mp2"))).isEmpty();
    assertThat(f.report().mountpaths()).extracting(MountpathsReport.Mountpath::path)
        .doesNotContain(f.path("mp2").toString());
    assertThat(files(f.path("mp2").resolve("objects"))).isZero();
    assertAllInPlace(names);
    await().atMost(Duration.ofSeconds(10)).until(() -> mp2.meta().isClosed()); // released: its disk may go
  }

  @Test
  void detach_multipartUploadInProgress_movesWithItsObject() throws IOException {
    f = new ResilverFixture(tmp, "mp1", "mp2");
    String name = null;
    for (int i = 0; name == null; i++) {
      if (f.store.locate(BUCKET, "upload-" + i).mountpath() == f.mountpath("mp1")) {
        name = "upload-" + i;
      }
    }
    Upload u = f.multipart.create(BUCKET, name, null, Map.of(), Map.of());
    byte[] part = "part one".getBytes();
    PutOperation op = f.store.beginPut(BUCKET, name, PutOptions.nativePut(part.length, List.of()));
    var buf = Unpooled.copiedBuffer(part);
    op.write(buf);
    buf.release();
    f.multipart.addPart(BUCKET, u, 1, op.finishStaged(), "md5-1");

    f.admin.detach(f.path("mp1").toString());
    awaitResilverDone();

    assertThat(f.resilverState().uploadsMoved()).isEqualTo(1);
    assertThat(f.multipart.require(BUCKET, name, u.uploadId())).isEqualTo(u);
    assertThat(f.multipart.parts(BUCKET, u)).singleElement().satisfies(p -> assertThat(p.size()).isEqualTo(8));
    assertThat(Files.exists(f.path("mp2").resolve("uploads").resolve(u.uploadId()))).isTrue();
    assertThat(Files.exists(f.path("mp1").resolve("uploads").resolve(u.uploadId()))).isFalse();
  }

  @Test
  void killedMidResilver_resumesFromTheMarker_nothingLostOrDuplicated() throws IOException {
    f = new ResilverFixture(tmp, "mp1", "mp2");
    List<String> names = f.putMany(900);
    // mp1 is walked first, in key order, a batch at a time. The walk dies in its second batch there, as a kill
    // leaves it: the pool runs each move to its end before the next is handed in, so exactly `limit` objects moved
    // and none is half done; the marker is at the end of the first batch; the record says the resilver did not
    // finish.
    List<String> mp1Keys = new java.util.ArrayList<>();
    f.mountpath("mp1").meta().scan("", null, (key, meta) -> mp1Keys.add(key));
    List<String> firstBatch = mp1Keys.subList(0, ResilverWalk.BATCH);
    List<String> secondBatch = mp1Keys.subList(ResilverWalk.BATCH, Math.min(mp1Keys.size(), 2 * ResilverWalk.BATCH));
    long inFirst = firstBatch.stream().filter(this::toMp3).count();
    long inSecond = secondBatch.stream().filter(this::toMp3).count();
    assertThat(inSecond).as("objects of mp1's second batch that move to mp3").isGreaterThan(1);
    int limit = (int) (inFirst + inSecond / 2);
    f.moves = () -> new DyingPool(limit);
    f.restart("mp1", "mp2");
    assertThat(f.resilverState().state()).as("the same flags: nothing to resilver")
        .isEqualTo(MountpathsReport.Resilver.IDLE);
    f.admin.attach(f.path("mp3").toString());
    await().atMost(Duration.ofSeconds(60)).until(() -> f.resilverEnded());
    assertThat(f.resilverState().state()).isEqualTo(MountpathsReport.Resilver.FAILED);
    long resilverId = f.resilverState().id();
    Mountpath mp3 = f.mountpath("mp3");
    long toMp3 = names.stream().filter(n -> f.store.locate(BUCKET, n).mountpath() == mp3).count();
    assertThat(mp3.usage().objectCount()).as("moved before the kill").isEqualTo(limit);
    assertThat(files(f.path("mp3").resolve("objects"))).isEqualTo(limit);
    assertThat(ResilverWalk.MARKERS.resumeAfter(f.mountpath("mp1").meta(), resilverId))
        .as("the marker: the last key of the last whole batch").isEqualTo(firstBatch.get(firstBatch.size() - 1));

    f.moves = () -> java.util.concurrent.Executors.newFixedThreadPool(2);
    f.restart("mp1", "mp2"); // mp3 was attached at run time: it comes back without a flag
    assertThat(f.store.mountpathSet().entry(f.path("mp3"))).hasValueSatisfying(
        e -> assertThat(e.state()).isEqualTo(MountpathState.AVAILABLE));
    awaitResilverDone();

    assertThat(f.resilverState().id()).isEqualTo(resilverId);
    assertThat(f.resilverState().cause()).contains("resuming");
    assertThat(f.resilverState().objectsToMove()).as("the resumed walk counts only what is left")
        .isEqualTo(toMp3 - limit);
    assertThat(f.resilverState().objectsMoved()).as("and moves nothing twice").isEqualTo(toMp3 - limit);
    assertThat(f.resilverState().failed()).isZero();
    assertAllInPlace(names);
    assertThat(f.mountpath("mp3").usage().objectCount()).isEqualTo(toMp3);
    long total = f.store.mountpaths().stream().mapToLong(mp -> mp.usage().objectCount()).sum();
    assertThat(total).isEqualTo(900);
    assertThat(files(f.path("mp1").resolve("objects")) + files(f.path("mp2").resolve("objects"))
        + files(f.path("mp3").resolve("objects"))).as("object files, none twice").isEqualTo(900);
  }

  @Test
  void aMountpathThatVanishesMidResilver_isDisabled_andTheTargetServesTheRest() throws IOException {
    f = new ResilverFixture(tmp, "mp1", "mp2");
    List<String> names = f.putMany(600);
    List<String> onMp2 = onlyOn(names, f.mountpath("mp2"));
    Path gone = tmp.resolve("mp2.gone");
    // At the resilver's 20th move (mp1 is walked first) the disk of mp2 vanishes: its directory is renamed away.
    f.moves = () -> new DyingPool(Integer.MAX_VALUE, 20, () -> {
      try {
        Files.move(f.path("mp2"), gone);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
    f.restart("mp1", "mp2");
    f.admin.attach(f.path("mp3").toString());

    await().atMost(Duration.ofSeconds(60)).until(() -> f.store.mountpathSet().entry(f.path("mp2")).orElseThrow()
        .state() == MountpathState.DISABLED);
    awaitResilverDone(); // the one the failure started, over mp1 and mp3
    assertThat(f.resilverState().cause()).contains("disable").contains("failed");
    assertThat(f.health.failures()).isEqualTo(1);
    assertThat(f.path("mp2")).as("a vanished directory is never created again").doesNotExist();
    List<String> survivors = new java.util.ArrayList<>();
    for (String n : names) {
      byte[] got = f.read(n);
      if (got == null) {
        assertThat(onMp2).as("only objects of the vanished disk are gone").contains(n);
      } else {
        assertThat(got).as(n).isEqualTo(content(n));
        survivors.add(n);
      }
    }
    assertThat(survivors).as("everything that was not on mp2").containsAll(names.stream()
        .filter(n -> !onMp2.contains(n)).toList());
    assertAllInPlace(survivors);
    f.put("after-the-failure", "still taking writes".getBytes());
    assertThat(f.read("after-the-failure")).isEqualTo("still taking writes".getBytes());
  }

  /** Whether the object of a metadata key has mp3 as its HRW mountpath once mp3 is attached. */
  private boolean toMp3(String key) {
    return hrwWithAll(key.substring(io.granary.target.storage.ObjectStore.bucketPrefix(BUCKET).length()))
        .equals("mp3");
  }

  /**
   * A move pool that runs each of the first {@code limit} moves to its end in the submitting thread, then refuses
   * the next one: the walk dies there, with exactly {@code limit} moves done and none in flight.
   */
  private static final class DyingPool extends java.util.concurrent.AbstractExecutorService {
    private final java.util.concurrent.atomic.AtomicInteger left;
    private final java.util.concurrent.atomic.AtomicInteger count = new java.util.concurrent.atomic.AtomicInteger();
    private final int eventAt;
    private final Runnable event;
    private volatile boolean shutdown;

    DyingPool(int limit) {
      this(limit, -1, () -> { });
    }

    /** Also runs {@code event} before the {@code eventAt}-th move (1-based). */
    DyingPool(int limit, int eventAt, Runnable event) {
      this.left = new java.util.concurrent.atomic.AtomicInteger(limit);
      this.eventAt = eventAt;
      this.event = event;
    }

    @Override
    public void execute(Runnable task) {
      if (shutdown || left.decrementAndGet() < 0) {
        throw new java.util.concurrent.RejectedExecutionException("killed");
      }
      if (count.incrementAndGet() == eventAt) {
        event.run();
      }
      task.run();
    }

    @Override
    public void shutdown() {
      shutdown = true;
    }

    @Override
    public List<Runnable> shutdownNow() {
      shutdown = true;
      return List.of();
    }

    @Override
    public boolean isShutdown() {
      return shutdown;
    }

    @Override
    public boolean isTerminated() {
      return shutdown;
    }

    @Override
    public boolean awaitTermination(long timeout, java.util.concurrent.TimeUnit unit) {
      return true;
    }
  }

  @Test
  void attach_backWithOlderCopies_theyAreDroppedBeforeItTakesObjects() throws IOException {
    f = new ResilverFixture(tmp, "mp1", "mp2", "mp3");
    List<String> names = f.putMany(200);
    f.admin.disable(f.path("mp3").toString());
    awaitResilverDone();
    // While mp3 is away, every object is written again: the copies mp3 still holds are older.
    for (String n : names) {
      f.put(n);
    }

    f.admin.attach(f.path("mp3").toString());
    awaitResilverDone();

    assertThat(f.mountpath("mp3")).isNotNull();
    assertThat(f.store.mountpathSet().entry(f.path("mp3")).orElseThrow().state())
        .isEqualTo(MountpathState.AVAILABLE);
    for (String n : names) {
      ObjectMeta now = f.store.stat(BUCKET, n);
      assertThat(f.holders(n)).as("copies of %s", n).hasSize(1);
      assertThat(now.mtime()).isGreaterThan(0);
    }
    assertAllInPlace(names);
  }

  /** The names whose only copy is on {@code mp} now. */
  private List<String> onlyOn(List<String> names, Mountpath mp) throws IOException {
    List<String> out = new java.util.ArrayList<>();
    for (String n : names) {
      if (f.holders(n).equals(List.of(mp))) {
        out.add(n);
      }
    }
    return out;
  }

  @Test
  void deletesAndOverwritesWhileAMountpathIsAway_areNotUndoneWhenItComesBack() throws IOException {
    f = new ResilverFixture(tmp, "mp1", "mp2", "mp3");
    List<String> names = f.putMany(300);
    List<String> onMp3 = onlyOn(names, f.mountpath("mp3"));
    assertThat(onMp3).hasSizeGreaterThan(40);
    List<String> deleted = onMp3.subList(0, 10);
    List<String> overwritten = onMp3.subList(10, 20);
    List<String> overwrittenThenDeleted = onMp3.subList(20, 30);
    List<String> untouched = onMp3.subList(30, onMp3.size());
    f.admin.disable(f.path("mp3").toString());
    awaitResilverDone();

    for (String n : deleted) {
      assertThat(f.store.delete(BUCKET, n)).as("%s is not served while its mountpath is away", n).isFalse();
    }
    for (String n : overwritten) {
      f.put(n, ("new " + n).getBytes());
    }
    for (String n : overwrittenThenDeleted) {
      f.put(n, ("new " + n).getBytes());
      assertThat(f.store.delete(BUCKET, n)).isTrue();
    }
    // New objects whose HRW mountpath is mp3 once it is back: they land elsewhere now, and move to it later.
    List<String> fresh = new java.util.ArrayList<>();
    for (int i = 0; fresh.size() < 5; i++) {
      String n = "fresh-" + i;
      f.put(n, ("fresh " + n).getBytes());
      if (hrwWithAll(n).equals("mp3")) {
        fresh.add(n);
      }
    }
    f.restart("mp1", "mp2", "mp3"); // still disabled: what happened while it was away is remembered across restarts
    assertThat(f.store.mountpathSet().entry(f.path("mp3")).orElseThrow().state())
        .isEqualTo(MountpathState.DISABLED);

    f.admin.attach(f.path("mp3").toString());
    awaitResilverDone();

    for (String n : concat(deleted, overwrittenThenDeleted)) {
      assertThat(f.read(n)).as("%s was deleted while its mountpath was away", n).isNull();
      assertThat(f.holders(n)).as("copies of %s", n).isEmpty();
    }
    for (String n : overwritten) {
      assertThat(f.read(n)).as(n).isEqualTo(("new " + n).getBytes());
      assertThat(f.holders(n)).containsExactly(f.store.locate(BUCKET, n).mountpath());
    }
    for (String n : fresh) {
      assertThat(f.read(n)).as(n).isEqualTo(("fresh " + n).getBytes());
      assertThat(f.holders(n)).containsExactly(f.mountpath("mp3"));
    }
    assertAllInPlace(untouched); // what was not changed meanwhile comes back with its disk
    assertThat(f.listed()).doesNotContainAnyElementsOf(concat(deleted, overwrittenThenDeleted))
        .containsAll(overwritten).containsAll(untouched).containsAll(fresh).doesNotHaveDuplicates();
    long files = files(f.path("mp3").resolve("objects"));
    assertThat(files).as("object files on mp3").isEqualTo(f.mountpath("mp3").usage().objectCount());
  }

  /** The mountpath ("mp1".."mp3") HRW picks for {@code name} when all three are available. */
  private String hrwWithAll(String name) {
    java.util.List<Path> all = List.of(f.path("mp1"), f.path("mp2"), f.path("mp3"));
    long digest = io.granary.clustermap.hrw.PlacementKey.digest(BUCKET.bucket(), name);
    return io.granary.clustermap.hrw.Rendezvous.unweighted(all, Path::toString).pick(digest).getFileName()
        .toString();
  }

  private static List<String> concat(List<String> a, List<String> b) {
    return Stream.concat(a.stream(), b.stream()).toList();
  }

  @Test
  void restart_withAnAddedAndARemovedFlag_resilversAfterStart() throws IOException {
    f = new ResilverFixture(tmp, "mp1", "mp2");
    List<String> names = f.putMany(300);
    long onMp2 = f.mountpath("mp2").usage().objectCount();

    f.restart("mp1", "mp3"); // mp2 removed: its objects are no longer served; mp3 added
    awaitResilverDone();

    assertThat(f.resilverState().cause()).contains("changed");
    assertThat(f.store.mountpathSet().entry(f.path("mp2"))).isEmpty();
    List<String> served = names.stream().filter(n -> {
      try {
        return f.store.stat(BUCKET, n) != null;
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }).toList();
    assertThat(served).hasSize((int) (300 - onMp2));
    assertAllInPlace(served);
    assertThat(f.mountpath("mp3").usage().objectCount()).isPositive();
  }
}
