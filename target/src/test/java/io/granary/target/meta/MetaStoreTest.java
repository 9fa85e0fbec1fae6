package io.granary.target.meta;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.clustermap.bucket.ChecksumType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetaStoreTest {
  private static final String P = "ais/bkt/id1/";

  @TempDir
  Path dir;
  private MetaStore store;
  private int seq;

  @BeforeEach
  void open() throws IOException {
    store = MetaStore.open(dir.resolve("meta"));
  }

  @AfterEach
  void close() {
    if (store != null) {
      store.close();
    }
  }

  private static ObjectMeta meta(long size) {
    return new ObjectMeta(size, ChecksumType.XXHASH64, String.format("%016x", size), 1_700_000_000_000L + size);
  }

  private CommitIntent intent(String key, long size) {
    String work = "work/" + (++seq) + ".w";
    return new CommitIntent(key, work, "objects/" + seq, meta(size));
  }

  /** Publishes {@code key} the way a commit does: intent, then complete. */
  private void put(String key, long size) throws IOException {
    CommitIntent i = intent(key, size);
    store.putIntent(i);
    store.completeIntent(i);
  }

  private List<String> scan(String prefix, String startAfter) throws IOException {
    List<String> keys = new ArrayList<>();
    store.scan(prefix, startAfter, (k, m) -> keys.add(k));
    return keys;
  }

  private static int utf8Compare(String a, String b) {
    return Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void get_absentKey_isNull() throws IOException {
    assertThat(store.get(P + "nope")).isNull();
  }

  @Test
  void putIntent_aloneDoesNotPublish_butIsListed() throws IOException {
    CommitIntent i = intent(P + "a", 5);
    store.putIntent(i);

    assertThat(store.get(P + "a")).isNull();
    assertThat(store.intents()).containsExactly(i);
  }

  @Test
  void completeIntent_publishesMetaAndRemovesIntent() throws IOException {
    CommitIntent i = intent(P + "a", 5);
    store.putIntent(i);
    store.completeIntent(i);

    assertThat(store.get(P + "a")).isEqualTo(meta(5));
    assertThat(store.intents()).isEmpty();
  }

  @Test
  void completeIntent_overwritesExistingMeta() throws IOException {
    put(P + "a", 5);
    put(P + "a", 9);
    assertThat(store.get(P + "a")).isEqualTo(meta(9));
  }

  @Test
  void dropIntent_removesOnlyThatIntent_andPublishesNothing() throws IOException {
    CommitIntent a = intent(P + "a", 1);
    CommitIntent b = intent(P + "b", 2);
    store.putIntent(a);
    store.putIntent(b);

    store.dropIntent(a.workFile());

    assertThat(store.intents()).containsExactly(b);
    assertThat(store.get(P + "a")).isNull();
    assertThat(store.get(P + "b")).isNull();
  }

  @Test
  void intents_listsEveryLeftover() throws IOException {
    CommitIntent a = intent(P + "a", 1);
    CommitIntent b = intent("ais/other/id2/b", 2);
    CommitIntent done = intent(P + "c", 3);
    store.putIntent(a);
    store.putIntent(b);
    store.putIntent(done);
    store.completeIntent(done);

    assertThat(store.intents()).containsExactlyInAnyOrder(a, b);
  }

  @Test
  void delete_removesKey() throws IOException {
    put(P + "a", 1);
    put(P + "b", 2);
    store.delete(P + "a");
    assertThat(store.get(P + "a")).isNull();
    assertThat(store.get(P + "b")).isEqualTo(meta(2));
    store.delete(P + "never-existed"); // no error
  }

  @Test
  void deletePrefix_removesOnlyThatPrefix() throws IOException {
    List<String> inside = List.of(P + "a", P + "dir/b", P + "😀", P + "\uFFFD");
    List<String> outside = List.of("ais/bkt/id1", "ais/bkt/id1.x", "ais/bkt/id10/a", "ais/bkt/id2/a", "ais/bk/id1/a",
        "s3/bkt/id1/a");
    for (String k : inside) {
      put(k, 1);
    }
    for (String k : outside) {
      put(k, 2);
    }

    store.deletePrefix(P);

    for (String k : inside) {
      assertThat(store.get(k)).as(k).isNull();
    }
    for (String k : outside) {
      assertThat(store.get(k)).as(k).isEqualTo(meta(2));
    }
    assertThat(scan(P, null)).isEmpty();
  }

  @Test
  void scan_returnsPrefixKeysInUtf8ByteOrder() throws IOException {
    List<String> names = List.of("z", "a", "😀", "\uFFFD", "\uE000", "ü", "b/c", "b", "A", "a\u0000");
    for (String n : names) {
      put(P + n, n.length());
    }
    put("ais/bkt/id0/zz", 1);
    put("ais/bkt/id2/a", 1);

    List<String> keys = scan(P, null);

    List<String> byBytes = names.stream().map(n -> P + n).sorted(MetaStoreTest::utf8Compare).toList();
    assertThat(keys).containsExactlyElementsOf(byBytes);
    assertThat(keys.subList(keys.size() - 3, keys.size())).containsExactly(P + "\uE000", P + "\uFFFD", P + "😀");
    // ... which is not Java's String order: that puts the surrogate pair of U+1F600 before U+E000.
    assertThat(keys).isNotEqualTo(names.stream().map(n -> P + n).sorted().toList());
  }

  @Test
  void scan_passesStoredMeta() throws IOException {
    put(P + "x", 42);
    List<ObjectMeta> metas = new ArrayList<>();
    store.scan(P, null, (k, m) -> metas.add(m));
    assertThat(metas).containsExactly(meta(42));
  }

  @Test
  void scan_startAfter_skipsThroughThatKeyInByteOrder() throws IOException {
    for (String n : List.of("a", "b", "c", "\uFFFD", "😀")) {
      put(P + n, 1);
    }
    assertThat(scan(P, P + "b")).containsExactly(P + "c", P + "\uFFFD", P + "😀");
    assertThat(scan(P, P + "bb")).as("startAfter need not exist").containsExactly(P + "c", P + "\uFFFD", P + "😀");
    // "\uFFFD" < "😀" in UTF-8, though not in UTF-16.
    assertThat(scan(P, P + "\uFFFD")).containsExactly(P + "😀");
    assertThat(scan(P, P + "😀")).isEmpty();
    assertThat(scan(P, "ais/bkt/id0/zzz")).as("startAfter before the prefix").hasSize(5);
    assertThat(scan(P, "ais/bkt/id2/")).as("startAfter past the prefix").isEmpty();
  }

  @Test
  void scan_narrowerPrefix_returnsOnlyThoseKeys() throws IOException {
    for (String n : List.of("dir/a", "dir/b", "dir2/a", "dis", "di")) {
      put(P + n, 1);
    }
    assertThat(scan(P + "dir/", null)).containsExactly(P + "dir/a", P + "dir/b");
    assertThat(scan(P + "dir", null)).containsExactly(P + "dir/a", P + "dir/b", P + "dir2/a");
  }

  @Test
  void scan_stopsWhenVisitorReturnsFalse() throws IOException {
    for (int i = 0; i < 10; i++) {
      put(P + "k" + i, i);
    }
    List<String> seen = new ArrayList<>();
    store.scan(P, null, (k, m) -> {
      seen.add(k);
      return seen.size() < 3;
    });
    assertThat(seen).containsExactly(P + "k0", P + "k1", P + "k2");
  }

  @Test
  void reopen_afterClose_keepsMetaAndIntents() throws IOException {
    put(P + "a", 7);
    put(P + "😀", 8);
    CommitIntent pending = intent(P + "b", 9);
    store.putIntent(pending);
    store.delete(P + "a");
    store.close();
    store = null;

    store = MetaStore.open(dir.resolve("meta"));

    assertThat(store.get(P + "a")).isNull();
    assertThat(store.get(P + "😀")).isEqualTo(meta(8));
    assertThat(store.intents()).containsExactly(pending);
    assertThat(scan(P, null)).containsExactly(P + "😀");
  }
}
