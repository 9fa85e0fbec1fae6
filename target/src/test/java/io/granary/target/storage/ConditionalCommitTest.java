package io.granary.target.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.common.error.ObjectNotFoundException;
import io.granary.common.error.PreconditionFailedException;
import io.granary.target.meta.ObjectMeta;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Write preconditions decided at the commit, under the object's lock, on a real store in a temp directory. */
class ConditionalCommitTest {
  private static final BucketProps BUCKET =
      new BucketProps(Bucket.local("cond"), "c1", ChecksumType.XXHASH64, Instant.EPOCH);

  @TempDir
  Path tmp;
  private ObjectStore store;

  @BeforeEach
  void open() throws IOException {
    store = ObjectStore.open("t1", List.of(Mountpath.open(tmp.resolve("mp1")), Mountpath.open(tmp.resolve("mp2"))),
        0);
  }

  @AfterEach
  void close() throws IOException {
    store.close();
  }

  private static byte[] data(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private PutOperation begin(String name, byte[] content, WriteCondition condition) throws IOException {
    PutOperation op = store.beginPut(BUCKET, name,
        PutOptions.nativePut(content.length, List.of()).withCondition(condition));
    op.write(Unpooled.wrappedBuffer(content));
    return op;
  }

  private ObjectMeta put(String name, byte[] content, WriteCondition condition) throws IOException {
    return begin(name, content, condition).finish();
  }

  private byte[] read(String name) throws IOException {
    StoredObject o = store.open(BUCKET, name);
    assertThat(o).as("object %s", name).isNotNull();
    try (FileChannel ch = o.channel()) {
      ByteBuffer b = ByteBuffer.allocate((int) ch.size());
      while (b.hasRemaining() && ch.read(b) >= 0) {
        // read it all
      }
      return b.array();
    }
  }

  /** No work file, no intent, no bytes counted as work in progress: a refused write left nothing behind. */
  private void assertNoLeftovers() throws IOException {
    for (Mountpath mp : store.mountpaths()) {
      try (Stream<Path> s = Files.walk(mp.workDir())) {
        assertThat(s.filter(Files::isRegularFile).toList()).as("work files on %s", mp).isEmpty();
      }
      assertThat(mp.meta().intents()).as("intents on %s", mp).isEmpty();
      assertThat(mp.usage().workBytes()).as("work bytes on %s", mp).isZero();
    }
  }

  @Test
  void ifNoneMatch_missingObject_commits() throws IOException {
    put("k", data("first"), WriteCondition.ifNoneMatchStar());

    assertThat(read("k")).isEqualTo(data("first"));
    assertNoLeftovers();
  }

  @Test
  void ifNoneMatch_existingObject_is412_andKeepsTheOldVersion() throws IOException {
    ObjectMeta old = put("k", data("old"), WriteCondition.NONE);

    assertThatThrownBy(() -> put("k", data("new!"), WriteCondition.ifNoneMatchStar()))
        .isInstanceOf(PreconditionFailedException.class);

    assertThat(store.stat(BUCKET, "k")).isEqualTo(old);
    assertThat(read("k")).isEqualTo(data("old"));
    assertThat(store.mountpaths().stream().mapToLong(mp -> mp.usage().objectBytes()).sum()).isEqualTo(old.size());
    assertNoLeftovers();
  }

  @Test
  void ifMatch_currentEtag_replaces() throws IOException {
    ObjectMeta old = put("k", data("old"), WriteCondition.NONE);

    ObjectMeta now = put("k", data("new"), WriteCondition.ifMatch(old.effectiveEtag()));

    assertThat(store.stat(BUCKET, "k")).isEqualTo(now);
    assertThat(read("k")).isEqualTo(data("new"));
    assertNoLeftovers();
  }

  @Test
  void ifMatch_otherEtag_is412_andKeepsTheOldVersion() throws IOException {
    ObjectMeta old = put("k", data("old"), WriteCondition.NONE);

    assertThatThrownBy(() -> put("k", data("new"), WriteCondition.ifMatch("0123456789abcdef")))
        .isInstanceOf(PreconditionFailedException.class)
        .hasMessageContaining(old.effectiveEtag());

    assertThat(store.stat(BUCKET, "k")).isEqualTo(old);
    assertThat(read("k")).isEqualTo(data("old"));
    assertNoLeftovers();
  }

  @Test
  void ifMatch_missingObject_is404_andStoresNothing() throws IOException {
    assertThatThrownBy(() -> put("k", data("new"), WriteCondition.ifMatch("0123456789abcdef")))
        .isInstanceOf(ObjectNotFoundException.class);
    assertThatThrownBy(() -> put("k", data("new"), WriteCondition.ifMatch("*")))
        .isInstanceOf(ObjectNotFoundException.class);

    assertThat(store.stat(BUCKET, "k")).isNull();
    assertNoLeftovers();
  }

  @Test
  void ifMatchStar_existingObject_replaces() throws IOException {
    put("k", data("old"), WriteCondition.NONE);

    put("k", data("new"), WriteCondition.ifMatch("*"));

    assertThat(read("k")).isEqualTo(data("new"));
  }

  @Test
  void condition_isDecidedAtTheCommit_notWhenTheBodyStarted() throws IOException {
    // Both writers start while the key is absent; the one that commits first wins, the other is refused.
    PutOperation first = begin("k", data("first"), WriteCondition.ifNoneMatchStar());
    PutOperation second = begin("k", data("second"), WriteCondition.ifNoneMatchStar());

    second.finish();
    assertThatThrownBy(first::finish).isInstanceOf(PreconditionFailedException.class);

    assertThat(read("k")).isEqualTo(data("second"));
    assertNoLeftovers();
  }

  @Test
  void racingIfNoneMatchWriters_exactlyOneCommits_andItsBytesAreStored() throws Exception {
    int writers = 16;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      CountDownLatch ready = new CountDownLatch(writers);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Boolean>> results = new ArrayList<>();
      for (int i = 0; i < writers; i++) {
        byte[] body = data("writer " + i + " ".repeat(i * 97));
        Callable<Boolean> write = () -> {
          PutOperation op = begin("race", body, WriteCondition.ifNoneMatchStar());
          ready.countDown();
          go.await(); // every body is staged before any commit starts
          try {
            op.finish();
            return true;
          } catch (PreconditionFailedException refused) {
            return false;
          }
        };
        results.add(pool.submit(write));
      }
      ready.await();
      go.countDown();
      List<Integer> winners = new ArrayList<>();
      for (int i = 0; i < writers; i++) {
        if (results.get(i).get()) {
          winners.add(i);
        }
      }
      assertThat(winners).hasSize(1);
      assertThat(read("race")).isEqualTo(data("writer " + winners.get(0) + " ".repeat(winners.get(0) * 97)));
      assertNoLeftovers();
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void writeChecked_failingCondition_neverRunsTheStep() throws IOException {
    put("k", data("old"), WriteCondition.NONE);
    AtomicBoolean ran = new AtomicBoolean();

    assertThatThrownBy(() -> store.writeChecked(store.locate(BUCKET, "k"), WriteCondition.ifNoneMatchStar(), () -> {
      ran.set(true);
      return null;
    })).isInstanceOf(PreconditionFailedException.class);

    assertThat(ran).isFalse();
    assertThat(store.writeChecked(store.locate(BUCKET, "k"), WriteCondition.ifMatch("*"), () -> "ran"))
        .isEqualTo("ran");
  }
}
