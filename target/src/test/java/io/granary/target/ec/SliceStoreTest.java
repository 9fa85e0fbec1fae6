package io.granary.target.ec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.common.error.BadRequestException;
import io.granary.common.error.ConflictException;
import io.granary.target.checksum.ContentHasher;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.ObjectStore;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SliceStore} over real files on two temp-dir mountpaths: a slice is committed only when its bytes match its
 * record, kept apart from objects, the newest version wins, removal and the owner's marks, and the record codec.
 */
class SliceStoreTest {
  private static final BucketProps BUCKET = new BucketProps(Bucket.local("bkt"), "b1d", ChecksumType.XXHASH64,
      Instant.EPOCH);
  @TempDir
  Path dir;
  private ObjectStore store;
  private Mountpath mp1;
  private Mountpath mp2;
  private SliceStore slices;

  @BeforeEach
  void open() throws IOException {
    mp1 = Mountpath.open(dir.resolve("mp1"));
    mp2 = Mountpath.open(dir.resolve("mp2"));
    store = ObjectStore.open("t1", List.of(mp1, mp2), 0);
    slices = new SliceStore("t1", store);
  }

  @AfterEach
  void close() throws IOException {
    store.close();
  }

  private static String xxh(byte[] b) {
    ContentHasher h = ContentHasher.of(ChecksumType.XXHASH64);
    h.update(ByteBuffer.wrap(b));
    return h.hex();
  }

  private static SliceRecord record(String name, int index, long mtime, byte[] content, String sum) {
    ObjectMeta m = new ObjectMeta(1000, ChecksumType.XXHASH64, "0123456789abcdef", mtime);
    return new SliceRecord("ais", "bkt", "b1d", name, index, 4, 2, 256 << 10, 1000, SliceRecord.versionOf(m), mtime,
        SliceRecord.encodeMeta(m), content.length, sum, 7);
  }

  private void receive(String name, SliceRecord r, byte[] content) throws IOException {
    SliceStore.SliceWrite w = slices.begin(BUCKET, name, r);
    w.write(Unpooled.wrappedBuffer(content));
    w.commit();
  }

  private long workFiles() throws IOException {
    long n = 0;
    for (String mp : List.of("mp1", "mp2")) {
      try (Stream<Path> s = Files.list(dir.resolve(mp).resolve("work"))) {
        n += s.count();
      }
    }
    return n;
  }

  @Test
  void verifiedSlice_isCommitted_apartFromObjects() throws Exception {
    byte[] c = "slice bytes".getBytes(StandardCharsets.UTF_8);
    SliceRecord r = record("a/b", 3, 100, c, xxh(c));
    receive("a/b", r, c);

    List<SliceStore.Held> held = slices.held(BUCKET, "a/b");
    assertThat(held).hasSize(1);
    assertThat(held.get(0).record()).isEqualTo(r);
    assertThat(Files.readAllBytes(held.get(0).file())).isEqualTo(c);
    assertThat(held.get(0).file().toString()).contains("/ec/ais/bkt/b1d/");
    assertThat(slices.held()).isEqualTo(1);
    assertThat(store.stat(BUCKET, "a/b")).as("a slice is no object").isNull();
    assertThat(store.list(BUCKET, "", null, null, 100).entries()).isEmpty();
    assertThat(slices.find(BUCKET, "a/b", r.version(), 3)).isNotNull();
    assertThat(slices.find(BUCKET, "a/b", r.version(), 2)).isNull();
    assertThat(workFiles()).isZero();
  }

  @Test
  void removeCorrupt_takesRottenShortAndMissingSlices_keepsWholeOnes_andObjectsHeldNamesEachObjectOnce()
      throws Exception {
    byte[] c = "slice bytes of some length".getBytes(StandardCharsets.UTF_8);
    for (String name : List.of("whole", "rotten", "short", "gone")) {
      for (int k : new int[] {0, 4}) {
        receive(name, record(name, k, 100, c, xxh(c)), c);
      }
    }
    assertThat(slices.objectsHeld(BUCKET)).containsExactlyInAnyOrder("whole", "rotten", "short", "gone");
    Path rotten = slices.find(BUCKET, "rotten", record("rotten", 0, 100, c, "").version(), 0).file();
    byte[] flipped = c.clone();
    flipped[5] ^= 0x01;
    Files.write(rotten, flipped);
    Files.write(slices.find(BUCKET, "short", record("short", 4, 100, c, "").version(), 4).file(),
        java.util.Arrays.copyOf(c, c.length - 1));
    Files.delete(slices.find(BUCKET, "gone", record("gone", 0, 100, c, "").version(), 0).file());
    assertThat(slices.held()).isEqualTo(8);

    assertThat(slices.removeCorrupt(BUCKET, "whole")).isEmpty();
    assertThat(slices.removeCorrupt(BUCKET, "rotten")).extracting(SliceRecord::index).containsExactly(0);
    assertThat(slices.removeCorrupt(BUCKET, "short")).extracting(SliceRecord::index).containsExactly(4);
    assertThat(slices.removeCorrupt(BUCKET, "gone")).extracting(SliceRecord::index).containsExactly(0);
    assertThat(slices.held()).isEqualTo(5);
    for (String name : List.of("rotten", "short", "gone")) {
      assertThat(slices.held(BUCKET, name)).as(name).hasSize(1);
    }
    assertThat(slices.held(BUCKET, "whole")).hasSize(2);
    assertThat(slices.holds(BUCKET, "rotten", record("rotten", 0, 100, c, "").version(), 0)).isFalse();
    assertThat(slices.holds(BUCKET, "rotten", record("rotten", 4, 100, c, "").version(), 4)).isTrue();
  }

  @Test
  void aMountpathBack_losesWhatWasSentAgainWhileItWasAway_keepsWhatOnlyItHolds_andACommitKeepsOneCopy()
      throws Exception {
    byte[] c = "slice bytes".getBytes(StandardCharsets.UTF_8);
    SliceRecord dup = record("dup", 2, 100, c, xxh(c));
    receive("dup", dup, c);
    Path away = mountpathOf(slices.find(BUCKET, "dup", dup.version(), 2).file());
    // An object held only on that mountpath, and an owner mark written there.
    String solo = nameHomedOn(away, "solo");
    SliceRecord soloRecord = record(solo, 0, 100, c, xxh(c));
    receive(solo, soloRecord, c);
    String marked = nameHomedOn(away, "marked");
    slices.markEncoded(BUCKET, marked, "100-abc", 3, List.of("t3", "t1"));

    setState(away, io.granary.target.storage.MountpathState.DISABLED);
    assertThat(slices.held(BUCKET, "dup")).isEmpty();
    receive("dup", dup, c); // the owner's audit found it missing and sent it again: to the other mountpath now
    slices.markEncoded(BUCKET, marked, "200-abc", 4, List.of("t2", "t4")); // encoded anew meanwhile
    setState(away, io.granary.target.storage.MountpathState.AVAILABLE);
    assertThat(slices.held(BUCKET, "dup")).as("both copies are seen once it is back").hasSize(2);

    Mountpath returning = store.mountpathSet().readable().stream().filter(m -> m.root().equals(away)).findFirst()
        .orElseThrow();
    assertThat(slices.dropReplaced(returning)).as("dup's record and bytes, and the stale mark").isEqualTo(3);
    List<SliceStore.Held> left = slices.held(BUCKET, "dup");
    assertThat(left).hasSize(1);
    assertThat(mountpathOf(left.get(0).file())).isNotEqualTo(away);
    assertThat(Files.readAllBytes(left.get(0).file())).isEqualTo(c);
    assertThat(slices.held(BUCKET, solo)).as("what only it holds stays").extracting(SliceStore.Held::record)
        .containsExactly(soloRecord);
    assertThat(slices.encodedFor(BUCKET, marked, "200-abc")).containsExactly("t2", "t4");
    assertThat(slices.isEncoded(BUCKET, marked, "100-abc")).isFalse();
    assertThat(slices.held()).isEqualTo(2);
    assertThat(slices.dropReplaced(returning)).as("nothing left to drop").isZero();

    // Sent once more now that its home is back: held there, and the copy on the other mountpath goes.
    receive("dup", dup, c);
    left = slices.held(BUCKET, "dup");
    assertThat(left).hasSize(1);
    assertThat(mountpathOf(left.get(0).file())).isEqualTo(away);
    assertThat(slices.held()).isEqualTo(2);
  }

  private Path mountpathOf(Path file) {
    return file.startsWith(dir.resolve("mp1")) ? dir.resolve("mp1") : dir.resolve("mp2");
  }

  /** A name starting with {@code prefix} whose slices go to mountpath {@code mp}. */
  private String nameHomedOn(Path mp, String prefix) throws IOException {
    byte[] c = "probe".getBytes(StandardCharsets.UTF_8);
    for (int i = 0; ; i++) {
      String name = prefix + i;
      receive(name, record(name, 5, 100, c, xxh(c)), c);
      boolean there = mountpathOf(slices.find(BUCKET, name, record(name, 5, 100, c, "").version(), 5).file())
          .equals(mp);
      slices.remove(BUCKET, name, r -> true);
      if (there) {
        return name;
      }
    }
  }

  /** Disables mountpath {@code mp} (as a failed health check does) or makes it available again, open as before. */
  private void setState(Path mp, io.granary.target.storage.MountpathState state) throws IOException {
    Mountpath open = mp.equals(dir.resolve("mp1")) ? mp1 : mp2;
    store.updateMountpaths(s -> s.with(new io.granary.target.storage.MountpathSet.Entry(mp, state,
        state.readable() ? open : null, state.readable() ? null : "test")));
  }

  @Test
  void badChecksumOrSize_is400_andLeavesNothing() throws Exception {
    byte[] c = "slice bytes".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> receive("x", record("x", 0, 100, c, "0000000000000000"), c))
        .isInstanceOf(BadRequestException.class).hasMessageContaining("hashes to");
    assertThatThrownBy(() -> receive("x", record("x", 0, 100, c, xxh(c)), "short".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(BadRequestException.class).hasMessageContaining("bytes");
    assertThat(slices.held(BUCKET, "x")).isEmpty();
    assertThat(slices.held()).isZero();
    assertThat(workFiles()).isZero();
  }

  @Test
  void newerVersionIsHeldBesideTheOlderUntilItsRemoval_olderIsRefused() throws Exception {
    byte[] old = "old".getBytes(StandardCharsets.UTF_8);
    byte[] neu = "new!".getBytes(StandardCharsets.UTF_8);
    SliceRecord older0 = record("o", 0, 100, old, xxh(old));
    SliceRecord older1 = record("o", 1, 100, old, xxh(old));
    receive("o", older0, old);
    receive("o", older1, old);
    SliceRecord newer = record("o", 0, 200, neu, xxh(neu));
    receive("o", newer, neu);
    assertThat(slices.held(BUCKET, "o")).extracting(SliceStore.Held::record)
        .containsExactlyInAnyOrder(older0, older1, newer);
    assertThatThrownBy(() -> receive("o", record("o", 2, 100, old, xxh(old)), old))
        .isInstanceOf(ConflictException.class);
    // the owner, done sending the new version, drops the others (DELETE ...?keep=VERSION)
    assertThat(slices.remove(BUCKET, "o", r -> !r.version().equals(newer.version()))).isEqualTo(2);
    assertThat(slices.held(BUCKET, "o")).extracting(SliceStore.Held::record).containsExactly(newer);
    assertThat(slices.held()).isEqualTo(1);
  }

  @Test
  void remove_keepsTheVersionAsked_orNothing() throws Exception {
    byte[] c = "c".getBytes(StandardCharsets.UTF_8);
    SliceRecord r = record("o", 4, 100, c, xxh(c));
    receive("o", r, c);
    assertThat(slices.remove(BUCKET, "o", x -> !x.version().equals(r.version()))).isZero();
    assertThat(slices.remove(BUCKET, "o", x -> true)).isEqualTo(1);
    assertThat(slices.held(BUCKET, "o")).isEmpty();
    assertThat(slices.held()).isZero();
  }

  @Test
  void encodedMarks_areDurableUntilCleared() throws Exception {
    slices.markEncoded(BUCKET, "o", "100-abc", 3, List.of("t3", "t1", "t7"));
    assertThat(slices.isEncoded(BUCKET, "o", "100-abc")).isTrue();
    assertThat(slices.encodedFor(BUCKET, "o", "100-abc")).as("the holders, in slice order")
        .containsExactly("t3", "t1", "t7");
    assertThat(slices.encodedFor(BUCKET, "o", "200-abc")).isNull();
    assertThat(slices.isEncoded(BUCKET, "o", "200-abc")).isFalse();
    slices.markEncoded(BUCKET, "o", "200-abc", 4, List.of("t2", "t4"));
    assertThat(slices.encodedFor(BUCKET, "o", "200-abc")).containsExactly("t2", "t4");
    assertThat(slices.isEncoded(BUCKET, "o", "100-abc")).as("one version marked at a time").isFalse();
    slices.clearMarks(BUCKET, "o", 150);
    assertThat(slices.isEncoded(BUCKET, "o", "200-abc")).as("a delete at 150 leaves what was written after")
        .isTrue();
    slices.clearMarks(BUCKET, "o");
    assertThat(slices.isEncoded(BUCKET, "o", "200-abc")).isFalse();
  }

  @Test
  void deletes_areRecordedForTheSweep_newestWins() throws Exception {
    assertThat(slices.deletedAt(BUCKET, "o")).isEqualTo(-1);
    slices.markDeleted(BUCKET, "o", 300);
    slices.markDeleted(BUCKET, "o", 500);
    assertThat(slices.deletedAt(BUCKET, "o")).isEqualTo(500);
    assertThat(slices.deletedAt(BUCKET, "other")).isEqualTo(-1);
    assertThat(slices.held(BUCKET, "o")).as("a delete mark is no slice").isEmpty();
  }

  @Test
  void recordCodec_roundTrips_andRefusesNonsense() throws Exception {
    byte[] c = "c".getBytes(StandardCharsets.UTF_8);
    SliceRecord r = record("o", SliceRecord.REPLICA, 100, c, xxh(c));
    assertThat(SliceRecord.decode(r.encode())).isEqualTo(r);
    assertThat(r.objectMeta().checksum()).isEqualTo("0123456789abcdef");
    assertThat(r.stem()).endsWith(".r");
    assertThatThrownBy(() -> SliceRecord.decode(new String(r.encode(), StandardCharsets.UTF_8)
        .replace("\"index\":-1", "\"index\":6").getBytes(StandardCharsets.UTF_8))).isInstanceOf(IOException.class);
    assertThatThrownBy(() -> SliceRecord.decode(new String(r.encode(), StandardCharsets.UTF_8)
        .replace(r.version(), "../../x").getBytes(StandardCharsets.UTF_8))).isInstanceOf(IOException.class);
    assertThat(SliceRecord.versionOf(new ObjectMeta(1, ChecksumType.MD5, "ab/cd-2", 5))).isEqualTo("5-ab_cd_2");
  }
}
