package io.granary.target.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.common.error.ChecksumMismatchException;
import io.granary.common.error.IncompleteBodyException;
import io.granary.common.error.InsufficientStorageException;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.listing.ObjectEntry;
import io.granary.target.meta.CommitIntent;
import io.granary.target.meta.ObjectMeta;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import net.openhft.hashing.LongHashFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ObjectStoreTest {
  private static final BucketProps BUCKET =
      new BucketProps(Bucket.local("bkt"), "b1d", ChecksumType.XXHASH64, Instant.EPOCH);
  private static final BucketProps OTHER =
      new BucketProps(Bucket.local("other"), "07e", ChecksumType.XXHASH64, Instant.EPOCH);

  @TempDir
  Path tmp;
  private Path root1;
  private Path root2;
  private ObjectStore store;

  @BeforeEach
  void open() throws IOException {
    root1 = tmp.resolve("mp1");
    root2 = tmp.resolve("mp2");
    store = openStore();
  }

  @AfterEach
  void close() throws IOException {
    if (store != null) {
      store.close();
    }
  }

  private ObjectStore openStore() throws IOException {
    return ObjectStore.open("t1", List.of(Mountpath.open(root1), Mountpath.open(root2)), 0);
  }

  private void reopen() throws IOException {
    store.close();
    store = null;
    store = openStore();
  }

  // ---------------------------------------------------------------- helpers

  private static byte[] data(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String xxh(byte[] b) {
    return String.format("%016x", LongHashFunction.xx(0).hashBytes(b));
  }

  private ObjectMeta put(BucketProps bucket, String name, byte[] content) throws IOException {
    PutOperation op = store.beginPut(bucket, name, PutOptions.nativePut(content.length, List.of()));
    write(op, content);
    return op.finish();
  }

  private ObjectMeta put(String name, byte[] content) throws IOException {
    return put(BUCKET, name, content);
  }

  private static void write(PutOperation op, byte[] content) throws IOException {
    ByteBuf buf = Unpooled.copiedBuffer(content);
    try {
      op.write(buf);
      assertThat(buf.readerIndex()).as("write does not consume the buffer").isZero();
    } finally {
      buf.release();
    }
  }

  private static byte[] readAll(FileChannel ch) throws IOException {
    ByteBuffer b = ByteBuffer.allocate((int) ch.size());
    long pos = 0;
    while (b.hasRemaining()) {
      int n = ch.read(b, pos);
      if (n < 0) {
        break;
      }
      pos += n;
    }
    return Arrays.copyOf(b.array(), b.position());
  }

  private byte[] read(BucketProps bucket, String name) throws IOException {
    StoredObject o = store.open(bucket, name);
    assertThat(o).as("object %s", name).isNotNull();
    try (FileChannel ch = o.channel()) {
      return readAll(ch);
    }
  }

  private static List<Path> files(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile).toList();
    }
  }

  private void assertNothingStored(String name) throws IOException {
    ObjectLocation loc = store.locate(BUCKET, name);
    assertThat(store.stat(BUCKET, name)).isNull();
    assertThat(store.open(BUCKET, name)).isNull();
    assertThat(loc.file()).doesNotExist();
    for (Mountpath mp : store.mountpaths()) {
      assertThat(files(mp.workDir())).as("work files on %s", mp).isEmpty();
      assertThat(mp.meta().intents()).isEmpty();
    }
  }

  // ---------------------------------------------------------------- put and read

  @Test
  void put_thenOpen_returnsMetaAndExactContent() throws IOException {
    byte[] content = data("hello, granary");
    long before = System.currentTimeMillis();

    ObjectMeta meta = put("dir/obj.txt", content);

    assertThat(meta.size()).isEqualTo(content.length);
    assertThat(meta.checksumType()).isEqualTo(ChecksumType.XXHASH64);
    assertThat(meta.checksum()).isEqualTo(xxh(content));
    assertThat(meta.mtime()).isGreaterThanOrEqualTo(before);
    assertThat(store.stat(BUCKET, "dir/obj.txt")).isEqualTo(meta);
    StoredObject o = store.open(BUCKET, "dir/obj.txt");
    try (FileChannel ch = o.channel()) {
      assertThat(o.meta()).isEqualTo(meta);
      assertThat(readAll(ch)).isEqualTo(content);
    }
    ObjectLocation loc = store.locate(BUCKET, "dir/obj.txt");
    assertThat(loc.file()).hasBinaryContent(content);
    assertThat(loc.key()).isEqualTo("ais/bkt/b1d/dir/obj.txt");
    for (Mountpath mp : store.mountpaths()) {
      assertThat(files(mp.workDir())).isEmpty();
      assertThat(mp.meta().intents()).isEmpty();
    }
  }

  @Test
  void put_emptyObject_isStored() throws IOException {
    ObjectMeta meta = put("empty", new byte[0]);
    assertThat(meta.size()).isZero();
    assertThat(meta.checksum()).isEqualTo("ef46db3751d8e999");
    assertThat(read(BUCKET, "empty")).isEmpty();
  }

  @Test
  void put_manyChunksOfMixedBuffers_storesExactBytes() throws IOException {
    byte[] content = new byte[300_001];
    new Random(5).nextBytes(content);
    PutOperation op = store.beginPut(BUCKET, "big", PutOptions.nativePut(content.length, List.of()));
    int at = 0;
    int i = 0;
    while (at < content.length) {
      int n = Math.min(content.length - at, 1 + (i * 7919) % 40_000);
      ByteBuf chunk;
      if (i % 3 == 0) {
        chunk = Unpooled.directBuffer(n).writeBytes(content, at, n);
      } else if (i % 3 == 1) {
        int half = n / 2;
        CompositeByteBuf c = Unpooled.compositeBuffer();
        c.addComponent(true, Unpooled.directBuffer(half).writeBytes(content, at, half));
        c.addComponent(true, Unpooled.copiedBuffer(content, at + half, n - half));
        chunk = c;
      } else {
        chunk = Unpooled.copiedBuffer(content, at, n);
      }
      try {
        op.write(chunk);
      } finally {
        chunk.release();
      }
      at += n;
      i++;
    }
    assertThat(op.written()).isEqualTo(content.length);

    ObjectMeta meta = op.finish();

    assertThat(meta.checksum()).isEqualTo(xxh(content));
    assertThat(read(BUCKET, "big")).isEqualTo(content);
  }

  @Test
  void put_chunkedWithoutDeclaredLength_isStored() throws IOException {
    PutOperation op = store.beginPut(BUCKET, "chunked", PutOptions.nativePut(-1, List.of()));
    write(op, data("abc"));
    write(op, data("def"));
    assertThat(op.finish().size()).isEqualTo(6);
    assertThat(read(BUCKET, "chunked")).isEqualTo(data("abcdef"));
  }

  @Test
  void put_bucketChecksumType_isUsed() throws IOException {
    BucketProps md5Bucket = new BucketProps(Bucket.local("md5bkt"), "m1", ChecksumType.MD5, Instant.EPOCH);
    byte[] content = data("abc");
    ObjectMeta meta = put(md5Bucket, "x", content);
    assertThat(meta.checksumType()).isEqualTo(ChecksumType.MD5);
    assertThat(meta.checksum()).isEqualTo("900150983cd24fb0d6963f7d28e17f72");
  }

  @Test
  void objects_spreadOverBothMountpaths_whereLocateSays() throws IOException {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      names.add("obj-" + i);
      put("obj-" + i, data("content " + i));
    }
    int[] perMountpath = new int[2];
    for (String n : names) {
      ObjectLocation loc = store.locate(BUCKET, n);
      Mountpath mp = loc.mountpath();
      perMountpath[mp.root().equals(store.mountpaths().get(0).root()) ? 0 : 1]++;
      assertThat(loc.file()).startsWithRaw(mp.objectsDir()).hasBinaryContent(data("content " + n.substring(4)));
      assertThat(mp.meta().get(loc.key())).isNotNull();
      Mountpath otherMp = store.mountpaths().get(0) == mp ? store.mountpaths().get(1) : store.mountpaths().get(0);
      assertThat(otherMp.meta().get(loc.key())).as("metadata only on the object's own mountpath").isNull();
    }
    assertThat(perMountpath[0]).isPositive();
    assertThat(perMountpath[1]).isPositive();
    assertThat(files(root1.resolve("objects")).size() + files(root2.resolve("objects")).size()).isEqualTo(40);
  }

  @Test
  void locate_isStableAndHashesTheName() {
    ObjectLocation a = store.locate(BUCKET, "../../etc/passwd");
    ObjectLocation b = store.locate(BUCKET, "../../etc/passwd");
    assertThat(a).isEqualTo(b);
    assertThat(a.file().normalize()).startsWithRaw(a.mountpath().objectsDir().resolve("ais/bkt/b1d"));
    assertThat(a.file().getFileName().toString()).matches("[0-9a-f]{64}");
  }

  // ---------------------------------------------------------------- failed puts

  @Test
  void finish_clientChecksumMismatch_throwsAndLeavesNothing() throws IOException {
    byte[] content = data("payload");
    PutOperation op = store.beginPut(BUCKET, "bad", PutOptions.nativePut(content.length,
        List.of(new ExpectedChecksum(ChecksumType.XXHASH64, "0000000000000000"))));
    write(op, content);

    assertThatThrownBy(op::finish)
        .isInstanceOfSatisfying(ChecksumMismatchException.class, e -> {
          assertThat(e.code()).isEqualTo("BadDigest");
          assertThat(e.getMessage()).contains("0000000000000000", xxh(content));
        });
    assertNothingStored("bad");
  }

  @Test
  void finish_clientChecksumOfOtherTypeMismatch_throwsAndLeavesNothing() throws IOException {
    byte[] content = data("payload");
    PutOperation op = store.beginPut(BUCKET, "bad", PutOptions.nativePut(content.length, List.of(
        new ExpectedChecksum(ChecksumType.XXHASH64, xxh(content)),
        new ExpectedChecksum(ChecksumType.MD5, "00000000000000000000000000000000"))));
    write(op, content);

    assertThatThrownBy(op::finish).isInstanceOf(ChecksumMismatchException.class).hasMessageContaining("md5");
    assertNothingStored("bad");
  }

  @Test
  void finish_clientChecksumsMatch_storesWithBucketChecksum() throws Exception {
    byte[] content = data("payload");
    String md5 = HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(content));
    PutOperation op = store.beginPut(BUCKET, "good", PutOptions.nativePut(content.length, List.of(
        new ExpectedChecksum(ChecksumType.MD5, md5.toUpperCase()),
        new ExpectedChecksum(ChecksumType.XXHASH64, xxh(content)))));
    write(op, content);

    ObjectMeta meta = op.finish();

    assertThat(meta.checksumType()).isEqualTo(ChecksumType.XXHASH64);
    assertThat(meta.checksum()).isEqualTo(xxh(content));
    assertThat(read(BUCKET, "good")).isEqualTo(content);
  }

  @Test
  void finish_mismatchOnOverwrite_keepsOldVersion() throws IOException {
    ObjectMeta old = put("x", data("old"));
    PutOperation op = store.beginPut(BUCKET, "x", PutOptions.nativePut(3,
        List.of(new ExpectedChecksum(ChecksumType.XXHASH64, "ffffffffffffffff"))));
    write(op, data("new"));

    assertThatThrownBy(op::finish).isInstanceOf(ChecksumMismatchException.class);
    assertThat(store.stat(BUCKET, "x")).isEqualTo(old);
    assertThat(read(BUCKET, "x")).isEqualTo(data("old"));
  }

  @Test
  void finish_fewerBytesThanDeclared_isIncompleteBodyAndLeavesNothing() throws IOException {
    PutOperation op = store.beginPut(BUCKET, "short", PutOptions.nativePut(100, List.of()));
    write(op, data("x".repeat(40)));

    assertThatThrownBy(op::finish)
        .isInstanceOfSatisfying(IncompleteBodyException.class, e -> {
          assertThat(e.code()).isEqualTo("IncompleteBody");
          assertThat(e.getMessage()).contains("40", "100");
        });
    assertNothingStored("short");
  }

  @Test
  void finish_moreBytesThanDeclared_isRefused() throws IOException {
    PutOperation op = store.beginPut(BUCKET, "long", PutOptions.nativePut(3, List.of()));
    write(op, data("12345"));
    assertThatThrownBy(op::finish).isInstanceOf(IncompleteBodyException.class);
    assertNothingStored("long");
  }

  @Test
  void discard_removesWorkFile_andIsIdempotent() throws IOException {
    PutOperation op = store.beginPut(BUCKET, "gone", PutOptions.nativePut(5, List.of()));
    write(op, data("12345"));
    Mountpath mp = op.location().mountpath();
    assertThat(files(mp.workDir())).hasSize(1);

    op.discard();
    op.discard();

    assertNothingStored("gone");
  }

  @Test
  void beginPut_wouldEatIntoReserve_is507AndCreatesNoWorkFile() throws IOException {
    store.close();
    store = ObjectStore.open("t1", List.of(Mountpath.open(root1), Mountpath.open(root2)), Long.MAX_VALUE / 2);

    assertThatThrownBy(() -> store.beginPut(BUCKET, "x", PutOptions.nativePut(1, List.of())))
        .isInstanceOfSatisfying(InsufficientStorageException.class,
            e -> assertThat(e.status().code()).isEqualTo(507));
    assertNothingStored("x");
  }

  // ---------------------------------------------------------------- overwrite, delete

  @Test
  void overwrite_replacesContent_openChannelKeepsOldContent() throws IOException {
    put("x", data("version one"));
    StoredObject before = store.open(BUCKET, "x");
    try (FileChannel oldChannel = before.channel()) {
      ObjectMeta v2 = put("x", data("v2"));

      assertThat(store.stat(BUCKET, "x")).isEqualTo(v2);
      assertThat(read(BUCKET, "x")).isEqualTo(data("v2"));
      assertThat(readAll(oldChannel)).as("reader that opened v1 still reads v1").isEqualTo(data("version one"));
      assertThat(before.meta().size()).isEqualTo(11);
    }
    assertThat(files(store.locate(BUCKET, "x").mountpath().objectsDir())).hasSize(1);
  }

  @Test
  void delete_existing_thenAgain() throws IOException {
    put("x", data("abc"));
    Path file = store.locate(BUCKET, "x").file();

    assertThat(store.delete(BUCKET, "x")).isTrue();
    assertThat(store.open(BUCKET, "x")).isNull();
    assertThat(store.stat(BUCKET, "x")).isNull();
    assertThat(file).doesNotExist();

    assertThat(store.delete(BUCKET, "x")).isFalse();
    assertThat(store.delete(BUCKET, "never")).isFalse();
  }

  @Test
  void open_metadataWithoutFile_isUnavailableAndTheMountpathIsChecked() throws IOException {
    put("x", data("abc"));
    ObjectLocation loc = store.locate(BUCKET, "x");
    List<Mountpath> suspects = new ArrayList<>();
    store.setFaultListener((mp, e) -> suspects.add(mp));
    Files.delete(loc.file());
    assertThatThrownBy(() -> store.open(BUCKET, "x")).isInstanceOf(ServiceUnavailableException.class)
        .hasMessageContaining(loc.mountpath().toString());
    assertThat(suspects).containsExactly(loc.mountpath());
  }

  // ---------------------------------------------------------------- list, destroy

  private List<ObjectEntry> flat(BucketProps bucket, String prefix, String startAfter, int limit) throws IOException {
    return store.list(bucket, prefix, startAfter, "", limit).entries();
  }

  @Test
  void list_withDelimiter_rollsUpCommonPrefixes_andResumesAfterAWholePrefix() throws IOException {
    for (String n : List.of("a", "dir/1", "dir/2", "dir/sub/3", "dir2/x", "e", "photos/2026/1.jpg", "photos/x.jpg")) {
      put(n, data(n));
    }
    io.granary.common.listing.ListPage top = store.list(BUCKET, "", null, "/", 1000);
    assertThat(names(top.entries())).containsExactly("a", "e");
    assertThat(top.prefixes()).containsExactly("dir/", "dir2/", "photos/");

    io.granary.common.listing.ListPage inDir = store.list(BUCKET, "dir/", null, "/", 1000);
    assertThat(names(inDir.entries())).containsExactly("dir/1", "dir/2");
    assertThat(inDir.prefixes()).containsExactly("dir/sub/");

    // Objects and prefixes share the limit; resuming after a prefix skips everything under it.
    io.granary.common.listing.ListPage first = store.list(BUCKET, "", null, "/", 2);
    assertThat(names(first.entries())).containsExactly("a");
    assertThat(first.prefixes()).containsExactly("dir/");
    io.granary.common.listing.ListPage second = store.list(BUCKET, "", "dir/", "/", 2);
    assertThat(second.prefixes()).containsExactly("dir2/");
    assertThat(names(second.entries())).containsExactly("e");
  }

  private static List<String> names(List<ObjectEntry> entries) {
    return entries.stream().map(ObjectEntry::name).toList();
  }

  @Test
  void list_mergesMountpathsInUtf8NameOrder() throws IOException {
    List<String> names = List.of("d", "b/2", "a", "😀", "c", "b/1", "\uFFFD", "ü", "b", "e", "f", "g", "h");
    for (String n : names) {
      put(n, data("x" + n));
    }
    put(OTHER, "a", data("other bucket"));
    assertThat(names.stream().map(n -> store.locate(BUCKET, n).mountpath()).distinct()).hasSize(2);

    List<ObjectEntry> all = flat(BUCKET, "", null, 1000);

    assertThat(names(all)).containsExactly("a", "b", "b/1", "b/2", "c", "d", "e", "f", "g", "h", "ü", "\uFFFD", "😀");
    ObjectEntry a = all.get(0);
    assertThat(a.size()).isEqualTo(2);
    assertThat(a.checksum().type()).isEqualTo(ChecksumType.XXHASH64);
    assertThat(a.checksum().value()).isEqualTo(xxh(data("xa")));
  }

  @Test
  void list_prefixStartAfterAndLimit() throws IOException {
    for (String n : List.of("a", "b", "b/1", "b/2", "b/3", "b/4", "c", "\uFFFD", "😀")) {
      put(n, data(n));
    }
    assertThat(names(flat(BUCKET, "b/", null, 1000))).containsExactly("b/1", "b/2", "b/3", "b/4");
    assertThat(names(flat(BUCKET, "b/", "b/2", 1000))).containsExactly("b/3", "b/4");
    assertThat(names(flat(BUCKET, "b/", "b/1", 2))).containsExactly("b/2", "b/3");
    assertThat(names(flat(BUCKET, "", null, 3))).containsExactly("a", "b", "b/1");
    assertThat(names(flat(BUCKET, "", "c", 1000))).containsExactly("\uFFFD", "😀");
    assertThat(names(flat(BUCKET, "", "\uFFFD", 1000))).containsExactly("😀");
    assertThat(names(flat(BUCKET, "", "a", 1))).containsExactly("b");
    assertThat(flat(BUCKET, "zzz", null, 10)).isEmpty();
    assertThat(flat(BUCKET, "", "😀", 10)).isEmpty();
  }

  @Test
  void list_pagingWithLimitVisitsEveryObjectOnce() throws IOException {
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      String n = String.format("o%02d", i);
      expected.add(n);
      put(n, data(n));
    }
    List<String> seen = new ArrayList<>();
    String after = null;
    while (true) {
      List<ObjectEntry> page = flat(BUCKET, "", after, 4);
      if (page.isEmpty()) {
        break;
      }
      assertThat(page.size()).isLessThanOrEqualTo(4);
      seen.addAll(names(page));
      after = page.get(page.size() - 1).name();
    }
    assertThat(seen).containsExactlyElementsOf(expected);
  }

  @Test
  void list_recreatedBucketWithNewId_seesNothingOld() throws IOException {
    put("a", data("a"));
    BucketProps recreated = new BucketProps(BUCKET.bucket(), "n3w", BUCKET.checksum(), Instant.EPOCH);
    assertThat(flat(recreated, "", null, 10)).isEmpty();
    assertThat(store.open(recreated, "a")).isNull();
  }

  @Test
  void destroyBucket_removesDataAndMetadata_only_ofThatBucket() throws IOException {
    for (int i = 0; i < 10; i++) {
      put("o" + i, data("x" + i));
    }
    put(OTHER, "keep", data("keep me"));

    store.destroyBucket(BUCKET);

    assertThat(flat(BUCKET, "", null, 100)).isEmpty();
    for (int i = 0; i < 10; i++) {
      assertThat(store.stat(BUCKET, "o" + i)).isNull();
    }
    for (Mountpath mp : store.mountpaths()) {
      assertThat(mp.objectsDir().resolve("ais/bkt/b1d")).doesNotExist();
      assertThat(files(mp.trashDir())).isEmpty();
    }
    assertThat(read(OTHER, "keep")).isEqualTo(data("keep me"));
    assertThat(names(flat(OTHER, "", null, 10))).containsExactly("keep");

    // The bucket can be written again afterwards.
    put("o1", data("again"));
    assertThat(read(BUCKET, "o1")).isEqualTo(data("again"));
  }

  // ---------------------------------------------------------------- crash recovery

  /** Writes what a commit leaves when it stops after the intent: a complete work file and its synced intent. */
  private CommitIntent crashAfterIntent(String name, byte[] content, String workName) throws IOException {
    ObjectLocation loc = store.locate(BUCKET, name);
    Mountpath mp = loc.mountpath();
    Path work = mp.workDir().resolve(workName);
    Files.write(work, content);
    ObjectMeta meta = new ObjectMeta(content.length, ChecksumType.XXHASH64, xxh(content), 1234L);
    CommitIntent intent = new CommitIntent(loc.key(), mp.root().relativize(work).toString(), loc.relativeFile(), meta);
    mp.meta().putIntent(intent);
    return intent;
  }

  @Test
  void recover_intentWithWorkFile_finishesCommit() throws IOException {
    put("x", data("old content"));
    CommitIntent intent = crashAfterIntent("x", data("new content"), "crashed.1");
    assertThat(store.stat(BUCKET, "x").checksum()).isEqualTo(xxh(data("old content")));

    reopen();

    assertThat(store.stat(BUCKET, "x")).isEqualTo(intent.meta());
    assertThat(read(BUCKET, "x")).isEqualTo(data("new content"));
    for (Mountpath mp : store.mountpaths()) {
      assertThat(files(mp.workDir())).isEmpty();
      assertThat(mp.meta().intents()).isEmpty();
    }
  }

  @Test
  void recover_intentForNewObjectInNewBucketDir_createsDirectories() throws IOException {
    CommitIntent intent = crashAfterIntent("fresh/name", data("fresh"), "crashed.2");
    assertThat(store.locate(BUCKET, "fresh/name").file().getParent()).doesNotExist();

    reopen();

    assertThat(store.stat(BUCKET, "fresh/name")).isEqualTo(intent.meta());
    assertThat(read(BUCKET, "fresh/name")).isEqualTo(data("fresh"));
    assertThat(names(flat(BUCKET, "", null, 10))).containsExactly("fresh/name");
  }

  @Test
  void recover_intentWhoseWorkFileWasRenamed_publishesMetadata() throws IOException {
    put("x", data("old"));
    CommitIntent intent = crashAfterIntent("x", data("renamed"), "crashed.3");
    // The rename happened, the metadata commit did not.
    ObjectLocation loc = store.locate(BUCKET, "x");
    Files.move(loc.mountpath().root().resolve(intent.workFile()), loc.file(),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);

    reopen();

    assertThat(store.stat(BUCKET, "x")).isEqualTo(intent.meta());
    assertThat(read(BUCKET, "x")).isEqualTo(data("renamed"));
    assertThat(store.locate(BUCKET, "x").mountpath().meta().intents()).isEmpty();
  }

  @Test
  void commit_syncsTheObjectsDirectoryAfterTheRename_andDropsTheIntentOnlyThen() throws IOException {
    List<String> steps = new ArrayList<>();
    ObjectLocation loc = store.locate(BUCKET, "durable");
    store.directorySync(dir -> {
      FileOps.syncDirectory(dir);
      steps.add(dir.equals(loc.file().getParent()) + " file=" + Files.exists(loc.file())
          + " intents=" + loc.mountpath().meta().intents().size());
    });

    put("durable", data("acknowledged"));

    // The directory holding the renamed file was synced while the intent still stood, and the intent went after.
    assertThat(steps).containsExactly("true file=true intents=1");
    assertThat(loc.mountpath().meta().intents()).isEmpty();
  }

  @Test
  void recover_renameUndoneByPowerLoss_whileIntentStood_finishesCommit() throws IOException {
    ObjectLocation loc = store.locate(BUCKET, "undone");
    Path[] work = new Path[1];
    store.directorySync(dir -> {
      // Power fails before the directory sync: the rename is lost, the synced intent survives.
      CommitIntent intent = loc.mountpath().meta().intents().get(0);
      work[0] = loc.mountpath().root().resolve(intent.workFile());
      Files.move(loc.file(), work[0]);
      throw new PowerLost(); // an Error: no cleanup runs, as none would
    });
    assertThatThrownBy(() -> put("undone", data("survives"))).isInstanceOf(PowerLost.class);
    assertThat(work[0]).exists();

    reopen();

    assertThat(read(BUCKET, "undone")).isEqualTo(data("survives"));
    assertThat(store.locate(BUCKET, "undone").mountpath().meta().intents()).isEmpty(); // the reopened mountpath
  }

  /** The process stops where this is thrown: nothing after it runs. */
  private static final class PowerLost extends Error {
  }

  @Test
  void createDirectories_makesEachNewDirectoryDurableInItsParent() throws IOException {
    Path deep = tmp.resolve("a/b/c");
    FileOps.createDirectories(deep);
    assertThat(deep).isDirectory();
    FileOps.createDirectories(deep); // exists: nothing to do
    assertThat(deep).isDirectory();
  }

  @Test
  void recover_strayWorkFileWithoutIntent_isRemoved() throws IOException {
    put("x", data("kept"));
    for (Mountpath mp : store.mountpaths()) {
      Files.write(mp.workDir().resolve("stray." + mp.root().getFileName()), data("half a body"));
    }

    reopen();

    for (Mountpath mp : store.mountpaths()) {
      assertThat(files(mp.workDir())).isEmpty();
    }
    assertThat(read(BUCKET, "x")).isEqualTo(data("kept"));
    assertThat(names(flat(BUCKET, "", null, 10))).containsExactly("x");
  }

  @Test
  void recover_leftoverTrash_isRemoved() throws IOException {
    Path trash = store.mountpaths().get(0).trashDir().resolve("bkt.old.1");
    Files.createDirectories(trash.resolve("ab"));
    Files.write(trash.resolve("ab/abcdef"), data("old"));

    reopen();

    assertThat(store.mountpaths().get(0).trashDir()).isEmptyDirectory();
  }

  @Test
  void reopen_keepsCommittedObjects() throws IOException {
    put("a", data("1"));
    put("b", data("22"));
    store.delete(BUCKET, "a");

    reopen();

    assertThat(store.stat(BUCKET, "a")).isNull();
    assertThat(read(BUCKET, "b")).isEqualTo(data("22"));
  }

  @Test
  void mountpath_inUse_cannotBeOpenedTwice() {
    assertThatThrownBy(() -> Mountpath.open(root1)).isInstanceOf(IOException.class).hasMessageContaining("in use");
  }
}
