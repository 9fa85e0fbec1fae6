package io.granary.target.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.clustermap.acl.CannedAcl;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.common.error.ChecksumMismatchException;
import io.granary.common.error.IncompleteBodyException;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.meta.RemoteVersion;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import net.openhft.hashing.LongHashFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Objects arriving from and leaving for other targets, against a real store (RocksDB, files) in a temp dir. */
class RelocationTest {
  private static final BucketProps BUCKET =
      new BucketProps(Bucket.local("bkt"), "b1d", ChecksumType.XXHASH64, Instant.EPOCH);

  @TempDir
  Path tmp;
  private ObjectStore store;
  private Relocation relocation;
  /** Digests of the objects this target owns "under its current map". */
  private final java.util.Set<Long> ownedHere = java.util.concurrent.ConcurrentHashMap.newKeySet();

  @BeforeEach
  void open() throws IOException {
    store = ObjectStore.open("t1", List.of(Mountpath.open(tmp.resolve("mp1")), Mountpath.open(tmp.resolve("mp2"))),
        0);
    relocation = new Relocation(store, ownedHere::contains);
  }

  @AfterEach
  void close() throws IOException {
    store.close();
  }

  private static byte[] data(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static ObjectMeta meta(byte[] content, long mtime) {
    return new ObjectMeta(content.length, ChecksumType.XXHASH64,
        String.format("%016x", LongHashFunction.xx().hashBytes(content)), mtime, "etag-" + mtime, "text/plain",
        Map.of("owner", "me"), Map.of("cache-control", "no-cache"), List.of(),
        new RemoteVersion("r-etag", "v7", 1234L));
  }

  private Relocation.Outcome receive(String name, byte[] content, ObjectMeta meta, long atime) throws IOException {
    PutOperation op = relocation.beginReceive(BUCKET, name, meta);
    op.write(Unpooled.wrappedBuffer(content));
    return relocation.commitReceived(op, meta, atime);
  }

  private byte[] read(String name) throws IOException {
    StoredObject o = store.open(BUCKET, name);
    try (var ch = o.channel()) {
      ByteBuffer b = ByteBuffer.allocate((int) o.meta().size());
      while (b.hasRemaining() && ch.read(b) > 0) {
        // read all
      }
      return b.array();
    }
  }

  private void put(String name, byte[] content) throws IOException {
    PutOperation op = store.beginPut(BUCKET, name, PutOptions.nativePut(content.length, List.of()));
    op.write(Unpooled.wrappedBuffer(content));
    op.finish();
  }

  private long workFiles() throws IOException {
    long n = 0;
    for (Mountpath mp : store.mountpaths()) {
      try (Stream<Path> s = Files.list(mp.workDir())) {
        n += s.count();
      }
    }
    return n;
  }

  @Test
  void commitReceived_newObject_isStoredWithItsWholeRecordAndAccessTime() throws IOException {
    byte[] c = data("moved content");
    ObjectMeta m = meta(c, 1000);

    assertThat(receive("a", c, m, 777)).isEqualTo(Relocation.Outcome.STORED);

    assertThat(store.stat(BUCKET, "a")).as("the record travels whole: etag, type, user meta, headers, remote")
        .isEqualTo(m);
    assertThat(read("a")).isEqualTo(c);
    assertThat(relocation.atime(BUCKET, "a")).isEqualTo(777);
  }

  @Test
  void commitReceived_aMirroredObject_dropsTheSendersCopyList_thisTargetMakesItsOwn() throws IOException {
    byte[] c = data("mirrored elsewhere");
    Mountpath here = store.locate(BUCKET, "m").mountpath();
    ObjectMeta sent = meta(c, 1000).withCopies(List.of(here.id(), "/sender/mp9")); // the sender's mountpath ids

    assertThat(receive("m", c, sent, 0)).isEqualTo(Relocation.Outcome.STORED);

    ObjectMeta stored = store.stat(BUCKET, "m");
    assertThat(stored.copies()).isEmpty();
    assertThat(stored.isMirrorCopyOn(here.id())).as("never taken for a mirror copy here").isFalse();
    assertThat(stored).isEqualTo(meta(c, 1000));
  }

  @Test
  void commitReceived_withACondition_decidesItAtTheCommit_andARefusalChangesNothing() throws IOException {
    byte[] first = data("first");
    receive("a", first, meta(first, 1000), 0);
    byte[] second = data("second");

    PutOperation op = relocation.beginReceive(BUCKET, "a", meta(second, 2000));
    op.write(Unpooled.wrappedBuffer(second));
    assertThatThrownBy(() -> relocation.commitReceived(op, meta(second, 2000), 0, WriteCondition.ifNoneMatchStar()))
        .isInstanceOf(io.granary.common.error.PreconditionFailedException.class);
    assertThat(read("a")).isEqualTo(first);
    assertThat(workFiles()).isZero();

    PutOperation ok = relocation.beginReceive(BUCKET, "a", meta(second, 2000));
    ok.write(Unpooled.wrappedBuffer(second));
    assertThat(relocation.commitReceived(ok, meta(second, 2000), 0, WriteCondition.ifMatch("etag-1000")))
        .isEqualTo(Relocation.Outcome.STORED);
    assertThat(read("a")).isEqualTo(second);
  }

  @Test
  void commitReceived_overAnOlderCopy_replacesIt_overANewerOrEqualOne_keepsIt() throws IOException {
    byte[] older = data("older");
    byte[] newer = data("newer!");
    receive("a", newer, meta(newer, 2000), 0);

    assertThat(receive("a", older, meta(older, 1000), 0)).as("older moved copy").isEqualTo(Relocation.Outcome.KEPT);
    assertThat(receive("a", newer, meta(newer, 2000), 0)).as("the same version").isEqualTo(Relocation.Outcome.KEPT);
    assertThat(read("a")).isEqualTo(newer);

    byte[] newest = data("newest copy");
    assertThat(receive("a", newest, meta(newest, 3000), 0)).isEqualTo(Relocation.Outcome.STORED);
    assertThat(read("a")).isEqualTo(newest);
    assertThat(workFiles()).as("refused copies leave no work file").isZero();
  }

  @Test
  void commitReceived_aPutThatLandedDuringTheMove_winsOverTheMovedCopy() throws IOException {
    byte[] moved = data("written before the move");
    put("a", data("written on the new owner during the move")); // mtime: now
    assertThat(receive("a", moved, meta(moved, System.currentTimeMillis() - 60_000), 0))
        .isEqualTo(Relocation.Outcome.KEPT);
    assertThat(read("a")).isEqualTo(data("written on the new owner during the move"));
  }

  @Test
  void commitReceived_afterADeleteWhileMoving_isRefusedUnlessNewer() throws IOException {
    byte[] c = data("deleted meanwhile");
    relocation.tombstone(BUCKET, "a", 5000);

    assertThat(receive("a", c, meta(c, 4000), 0)).isEqualTo(Relocation.Outcome.DELETED);
    assertThat(store.stat(BUCKET, "a")).isNull();
    assertThat(receive("a", c, meta(c, 6000), 0)).as("written after the delete").isEqualTo(Relocation.Outcome.STORED);

    relocation.clearTombstones();
    assertThat(store.delete(BUCKET, "a")).isTrue();
    assertThat(receive("a", c, meta(c, 4000), 0)).as("tombstones cleared").isEqualTo(Relocation.Outcome.STORED);
  }

  @Test
  void beginReceive_contentNotMatchingItsRecord_storesNothing() throws IOException {
    byte[] c = data("the real content");
    ObjectMeta m = meta(c, 1000);
    PutOperation corrupt = relocation.beginReceive(BUCKET, "a", m);
    byte[] flipped = c.clone();
    flipped[3] ^= 1;
    corrupt.write(Unpooled.wrappedBuffer(flipped));
    assertThatThrownBy(() -> relocation.commitReceived(corrupt, m, 0)).isInstanceOf(ChecksumMismatchException.class);

    PutOperation shorter = relocation.beginReceive(BUCKET, "a", m);
    shorter.write(Unpooled.wrappedBuffer(c, 0, 5));
    assertThatThrownBy(() -> relocation.commitReceived(shorter, m, 0)).isInstanceOf(IncompleteBodyException.class);

    assertThat(store.stat(BUCKET, "a")).isNull();
    assertThat(workFiles()).isZero();
  }

  @Test
  void removeSent_removesOnlyTheVersionThatWasSent() throws IOException {
    byte[] c = data("sent");
    receive("a", c, meta(c, 1000), 0);
    ObjectMeta sent = store.stat(BUCKET, "a");
    put("a", data("a newer write landed here meanwhile"));

    assertThat(relocation.removeSent(BUCKET, "a", sent)).isFalse();
    assertThat(read("a")).isEqualTo(data("a newer write landed here meanwhile"));

    ObjectMeta now = store.stat(BUCKET, "a");
    assertThat(relocation.removeSent(BUCKET, "a", now)).isTrue();
    assertThat(store.stat(BUCKET, "a")).isNull();
    assertThat(store.locate(BUCKET, "a").file()).doesNotExist();
    assertThat(relocation.removeSent(BUCKET, "a", now)).as("already gone").isFalse();
  }

  @Test
  void removeSent_neverRemovesACopyThisTargetOwnsNow_singleOrBatch() throws IOException {
    // Sent off under one map, then placed back here by a newer one: the other target may have dropped its copy
    // because it found this one, so this is the only copy left.
    byte[] a = data("a");
    byte[] b = data("b");
    receive("a", a, meta(a, 1000), 0);
    receive("b", b, meta(b, 1000), 0);
    ObjectMeta sentA = store.stat(BUCKET, "a");
    ObjectMeta sentB = store.stat(BUCKET, "b");
    ownedHere.add(store.locate(BUCKET, "a").digest());
    ownedHere.add(store.locate(BUCKET, "b").digest());

    assertThat(relocation.removeSent(BUCKET, "a", sentA)).isFalse();
    assertThat(relocation.removeSent(List.of(new Relocation.Sent(BUCKET, "b", sentB)))).isZero();
    assertThat(read("a")).isEqualTo(a);
    assertThat(read("b")).isEqualTo(b);

    ownedHere.remove(store.locate(BUCKET, "a").digest());
    assertThat(relocation.removeSent(BUCKET, "a", sentA)).as("owned elsewhere again").isTrue();
    assertThat(relocation.removeOlderThan(BUCKET, "b", 2000)).as("a delete removes even an owner's older copy")
        .isTrue();
  }

  @Test
  void removeSent_batch_removesEachUnchangedCopyOnEveryMountpath_andLeavesChangedOnes() throws IOException {
    List<Relocation.Sent> sent = new java.util.ArrayList<>();
    for (int i = 0; i < 40; i++) {
      byte[] c = data("batch " + i);
      receive("o" + i, c, meta(c, 1000 + i), 0);
      sent.add(new Relocation.Sent(BUCKET, "o" + i, store.stat(BUCKET, "o" + i)));
    }
    put("o7", data("a newer write landed here"));
    sent.add(new Relocation.Sent(BUCKET, "absent", meta(data("x"), 1)));

    assertThat(relocation.removeSent(sent)).isEqualTo(39);

    assertThat(read("o7")).isEqualTo(data("a newer write landed here"));
    for (int i = 0; i < 40; i++) {
      if (i != 7) {
        assertThat(store.stat(BUCKET, "o" + i)).as("o" + i).isNull();
        assertThat(store.locate(BUCKET, "o" + i).file()).doesNotExist();
      }
    }
    java.util.Set<Path> used = new java.util.HashSet<>();
    sent.forEach(x -> used.add(store.locate(BUCKET, x.name()).mountpath().root()));
    assertThat(used).as("the batch spanned both mountpaths").hasSize(2);
  }

  @Test
  void removeSent_batch_holdsNoLockAcrossItsSync_andKeepsTheFileOfACopyCommittedAgainMeanwhile() throws Exception {
    List<Relocation.Sent> sent = new java.util.ArrayList<>();
    for (int i = 0; i < 40; i++) {
      byte[] c = data("moving " + i);
      receive("m" + i, c, meta(c, 2000 + i), 0);
      sent.add(new Relocation.Sent(BUCKET, "m" + i, store.stat(BUCKET, "m" + i)));
    }
    java.util.concurrent.atomic.AtomicBoolean readersServed = new java.util.concurrent.atomic.AtomicBoolean();
    relocation.beforeSync(() -> {
      // Another thread (an event loop serving GETs) takes each object's read lock while the removal syncs.
      var reader = java.util.concurrent.CompletableFuture.supplyAsync(() -> sent.stream().allMatch(s -> {
        var lock = store.locks().forDigest(store.locate(BUCKET, s.name()).digest()).readLock();
        if (!lock.tryLock()) {
          return false;
        }
        lock.unlock();
        return true;
      }));
      readersServed.set(reader.join());
      try {
        put("m3", data("placed back here and written again before the sync")); // a record for m3 comes back
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });

    assertThat(relocation.removeSent(sent)).isEqualTo(40);

    assertThat(readersServed).as("no object lock is held while the deletes sync").isTrue();
    assertThat(read("m3")).isEqualTo(data("placed back here and written again before the sync"));
    for (int i = 0; i < 40; i++) {
      if (i != 3) {
        assertThat(store.stat(BUCKET, "m" + i)).as("m" + i).isNull();
        assertThat(store.locate(BUCKET, "m" + i).file()).as("m" + i).doesNotExist();
      }
    }
  }

  @Test
  void removeOlderThan_removesOnlyCopiesTheDeleteSaw() throws IOException {
    byte[] c = data("x");
    receive("old", c, meta(c, 1000), 0);
    receive("new", c, meta(c, 9000), 0);

    assertThat(relocation.removeOlderThan(BUCKET, "old", 5000)).isTrue();
    assertThat(relocation.removeOlderThan(BUCKET, "new", 5000)).isFalse();
    assertThat(relocation.removeOlderThan(BUCKET, "absent", 5000)).isFalse();
    assertThat(store.stat(BUCKET, "old")).isNull();
    assertThat(store.stat(BUCKET, "new")).isNotNull();
  }

  @Test
  void open_readsWithoutCountingAnAccess() throws IOException {
    int[] accesses = {0};
    store.setAccessRecorder(new AccessRecorder() {
      @Override
      public void accessed(ObjectLocation loc) {
        accesses[0]++;
      }

      @Override
      public void removed(ObjectLocation loc) {
      }
    });
    put("a", data("quiet"));
    StoredObject o = relocation.open(BUCKET, "a");
    o.channel().close();
    assertThat(accesses[0]).isZero();
    assertThat(relocation.open(BUCKET, "absent")).isNull();
  }

  @Test
  void commitListener_isToldOfEveryCommitAfterItIsDurable() throws IOException {
    List<String> told = new java.util.ArrayList<>();
    store.addCommitListener((loc, meta) -> {
      try {
        assertThat(loc.mountpath().meta().intents()).as("told after the intent went").isEmpty();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      told.add(loc.name() + "@" + meta.size());
    });
    put("a", data("12345"));
    byte[] c = data("abc");
    receive("b", c, meta(c, 1000), 0);
    receive("b", c, meta(c, 1000), 0); // kept: not a commit
    assertThat(told).containsExactly("a@5", "b@3");
  }

  /**
   * The race of issue 18 ("a PutObjectAcl made on the old owner during a move can be lost"), step by step with two
   * real stores: this target sent its copy, the owner committed it, then an ACL change reached this target (routed by
   * an older map), then this target removes what it sent. Unguarded, the change is lost: the changed copy here is no
   * longer the one sent, so it stays; the next send of it is the same version to the owner (equal mtime), kept
   * there as it was, and this target then removes the only changed copy.
   */
  @Test
  void updateAcl_unguarded_onACopyAlreadySent_isLost() throws IOException {
    ObjectStore ownerStore = ObjectStore.open("t2", List.of(Mountpath.open(tmp.resolve("owner"))), 0);
    try {
      Relocation owner = new Relocation(ownerStore, digest -> true);
      byte[] c = data("moving");
      receive("k", c, meta(c, 1000), 0);
      ObjectMeta sent = relocation.current(BUCKET, "k");
      assertThat(receiveAt(owner, "k", c, sent)).isEqualTo(Relocation.Outcome.STORED);

      store.updateAcl(BUCKET, "k", CannedAcl.PUBLIC_READ); // the change as it was made before it was guarded

      assertThat(relocation.removeSent(BUCKET, "k", sent)).as("changed since it was sent: not removed").isFalse();
      ObjectMeta changed = relocation.current(BUCKET, "k");
      assertThat(receiveAt(owner, "k", c, changed)).as("the same version to the owner")
          .isEqualTo(Relocation.Outcome.KEPT);
      assertThat(relocation.removeSent(BUCKET, "k", changed)).isTrue();
      assertThat(owner.current(BUCKET, "k").acl()).as("the change is gone").isEqualTo(CannedAcl.PRIVATE);
    } finally {
      ownerStore.close();
    }
  }

  private static Relocation.Outcome receiveAt(Relocation at, String name, byte[] content, ObjectMeta meta)
      throws IOException {
    PutOperation op = at.beginReceive(BUCKET, name, meta);
    op.write(Unpooled.wrappedBuffer(content));
    return at.commitReceived(op, meta, 0);
  }

  @Test
  void changeAcl_onATargetThatNoLongerOwnsTheObject_is503ObjectMoving_andTheSentCopyIsStillRemoved()
      throws IOException {
    byte[] c = data("moving");
    receive("k", c, meta(c, 1000), 0);
    ObjectMeta sent = relocation.current(BUCKET, "k");

    assertThatThrownBy(() -> relocation.changeAcl(BUCKET, "k", CannedAcl.PUBLIC_READ))
        .isInstanceOfSatisfying(ServiceUnavailableException.class, e -> {
          assertThat(e.status().code()).isEqualTo(503);
          assertThat(e.code()).isEqualTo(ServiceUnavailableException.OBJECT_MOVING);
        });

    assertThat(relocation.current(BUCKET, "k")).as("nothing changed").isEqualTo(sent);
    assertThat(relocation.removeSent(BUCKET, "k", sent)).isTrue();
    assertThat(relocation.current(BUCKET, "k")).isNull();
  }

  @Test
  void changeAcl_onTheOwner_changesOnlyTheAcl_andAResentCopyOfTheSameVersionDoesNotUndoIt() throws IOException {
    ownedHere.add(store.locate(BUCKET, "k").digest());
    byte[] c = data("owned");
    ObjectMeta sent = meta(c, 1000);
    receive("k", c, sent, 0);

    ObjectMeta changed = relocation.changeAcl(BUCKET, "k", CannedAcl.PUBLIC_READ);

    assertThat(changed).isEqualTo(sent.withAcl(CannedAcl.PUBLIC_READ));
    assertThat(relocation.current(BUCKET, "k")).isEqualTo(changed);
    // The previous owner sends the same version again (a walk after a push): it is kept, the ACL with it.
    assertThat(receive("k", c, sent, 0)).isEqualTo(Relocation.Outcome.KEPT);
    assertThat(relocation.current(BUCKET, "k").acl()).isEqualTo(CannedAcl.PUBLIC_READ);
    assertThat(read("k")).isEqualTo(c);
    ownedHere.add(store.locate(BUCKET, "absent").digest());
    assertThat(relocation.changeAcl(BUCKET, "absent", CannedAcl.PUBLIC_READ)).as("missing on its owner").isNull();
  }
}
