package io.granary.target.multipart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.common.error.ObjectNotFoundException;
import io.granary.common.error.PreconditionFailedException;
import io.granary.common.membership.UploadHolder;
import io.granary.common.s3.CompletedPart;
import io.granary.common.s3.S3ApiException;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.PutOperation;
import io.granary.target.storage.PutOptions;
import io.granary.target.storage.StoredObject;
import io.granary.target.storage.WriteCondition;
import io.granary.testkit.MutableClock;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MultipartStoreTest {
  private static final BucketProps BUCKET = new BucketProps(Bucket.local("mpu"), "b1", ChecksumType.XXHASH64, null);
  private static final int MIB = 1 << 20;

  @TempDir
  Path dir;
  private ObjectStore store;
  private MultipartStore multipart;
  private MutableClock clock;

  @BeforeEach
  void open() throws IOException {
    store = ObjectStore.open("t1", List.of(Mountpath.open(dir.resolve("mp1")), Mountpath.open(dir.resolve("mp2"))),
        0);
    clock = new MutableClock(Instant.parse("2026-11-21T00:00:00Z")); // moved by hand: the TTL sweep needs no sleeping
    multipart = new MultipartStore("t1", store, clock);
  }

  @AfterEach
  void close() throws IOException {
    store.close();
  }

  private static byte[] data(long seed, int size) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static String md5(byte[] b) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(b));
  }

  /** Uploads {@code content} as part {@code number}, as UploadPart does; returns its ETag. */
  private String upload(Upload u, int number, byte[] content) throws IOException {
    PutOperation op = store.beginPut(BUCKET, u.name(), new PutOptions(content.length, List.of(), true, null, Map.of()));
    op.write(Unpooled.wrappedBuffer(content));
    PutOperation.Staged staged = op.finishStaged();
    return multipart.addPart(BUCKET, u, number, staged, staged.sums().get(ChecksumType.MD5)).md5();
  }

  private byte[] read(String name) throws IOException {
    StoredObject o = store.open(BUCKET, name);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (var ch = o.channel()) {
      ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
      while (ch.read(buf) > 0) {
        out.write(buf.array(), 0, buf.position());
        buf.clear();
      }
    }
    return out.toByteArray();
  }

  private long uploadFiles() throws IOException {
    long n = 0;
    for (String mp : List.of("mp1", "mp2")) {
      try (Stream<Path> s = Files.walk(dir.resolve(mp).resolve("uploads"))) {
        n += s.filter(Files::isRegularFile).count();
      }
    }
    return n;
  }

  @Test
  void complete_assemblesPartsInOrder_withS3MultipartEtag_andRemovesTheUpload() throws Exception {
    Upload u = multipart.create(BUCKET, "dir/big.bin", "video/mp4", Map.of("k", "v"),
        Map.of("cache-control", "no-cache"));
    byte[] p1 = data(1, 5 * MIB);
    byte[] p2 = data(2, 5 * MIB);
    byte[] p3 = data(3, 123);
    String e2 = upload(u, 2, p2);
    String e1 = upload(u, 1, p1);
    String e3 = upload(u, 3, p3);
    assertThat(e1).isEqualTo(md5(p1));
    assertThat(multipart.parts(BUCKET, u)).extracting(Part::number).containsExactly(1, 2, 3);

    CompletedUpload done = multipart.complete(BUCKET, "dir/big.bin", u.uploadId(), List.of(
        new CompletedPart(1, "\"" + e1 + "\""), new CompletedPart(2, e2), new CompletedPart(3, e3)));
    ObjectMeta meta = store.stat(BUCKET, "dir/big.bin");

    MessageDigest md = MessageDigest.getInstance("MD5");
    for (String e : List.of(e1, e2, e3)) {
      md.update(HexFormat.of().parseHex(e));
    }
    assertThat(meta.etag()).isEqualTo(HexFormat.of().formatHex(md.digest()) + "-3").isEqualTo(done.etag());
    assertThat(meta.size()).isEqualTo(10L * MIB + 123);
    assertThat(meta.contentType()).isEqualTo("video/mp4");
    assertThat(meta.userMeta()).containsEntry("k", "v");
    assertThat(meta.headers()).containsExactly(Map.entry("cache-control", "no-cache"));
    assertThat(meta.partSizes()).containsExactly(5L * MIB, 5L * MIB, 123L);
    byte[] whole = read("dir/big.bin");
    assertThat(Arrays.copyOfRange(whole, 0, 5 * MIB)).isEqualTo(p1);
    assertThat(Arrays.copyOfRange(whole, 5 * MIB, 10 * MIB)).isEqualTo(p2);
    assertThat(Arrays.copyOfRange(whole, 10 * MIB, whole.length)).isEqualTo(p3);
    assertThatThrownBy(() -> multipart.require(BUCKET, "dir/big.bin", u.uploadId())).hasMessageContaining("does not exist");
    assertThat(uploadFiles()).isZero();
  }

  @Test
  void create_namesThisTargetInTheUploadId_andHoldsItUntilItEnds() throws Exception {
    assertThat(multipart.holdsUploads()).isFalse();
    Upload u = multipart.create(BUCKET, "k", null, Map.of(), Map.of());
    assertThat(UploadHolder.holderOf(u.uploadId())).isEqualTo("t1");
    assertThat(multipart.holdsUploads()).isTrue();
    multipart.abort(BUCKET, "k", u.uploadId());
    assertThat(multipart.holdsUploads()).isFalse();
  }

  /** The owner of every key, another target: keeps what it is sent, or refuses as {@code refusal} says. */
  private static final class OtherOwner implements OwnerDelivery.Owner {
    final List<byte[]> received = new java.util.ArrayList<>();
    final List<ObjectMeta> metas = new java.util.ArrayList<>();
    final List<WriteCondition> conditions = new java.util.ArrayList<>();
    String etag; // its copy's ETag, null: none
    RuntimeException refusal;

    @Override
    public String node() {
      return "t2";
    }

    @Override
    public void check(WriteCondition condition) {
      condition.checkEtag(etag, BUCKET.bucket().toString(), "k");
    }

    @Override
    public void deliver(Path file, ObjectMeta meta, WriteCondition condition) throws IOException {
      if (refusal != null) {
        throw refusal;
      }
      received.add(Files.readAllBytes(file));
      metas.add(meta);
      conditions.add(condition);
    }
  }

  @Test
  void complete_ofAKeyAnotherTargetOwnsNow_sendsTheObjectThere_andKeepsOnlyTheCompletionHere() throws Exception {
    Upload u = multipart.create(BUCKET, "k", "text/plain", Map.of(), Map.of());
    byte[] p1 = data(1, 5 * MIB);
    byte[] p2 = data(2, 77);
    String e1 = upload(u, 1, p1);
    String e2 = upload(u, 2, p2);
    OtherOwner owner = new OtherOwner();
    multipart.deliverThrough((b, name) -> owner); // a target joined and took the key over
    List<CompletedPart> parts = List.of(new CompletedPart(1, e1), new CompletedPart(2, e2));

    CompletedUpload done = multipart.complete(BUCKET, "k", u.uploadId(), parts, WriteCondition.ifNoneMatchStar());

    assertThat(owner.received).singleElement().satisfies(b -> {
      assertThat(Arrays.copyOfRange(b, 0, 5 * MIB)).isEqualTo(p1);
      assertThat(Arrays.copyOfRange(b, 5 * MIB, b.length)).isEqualTo(p2);
    });
    assertThat(owner.metas.get(0).etag()).isEqualTo(done.etag()).endsWith("-2");
    assertThat(owner.metas.get(0).contentType()).isEqualTo("text/plain");
    assertThat(owner.conditions).containsExactly(WriteCondition.ifNoneMatchStar()); // decided at its commit
    assertThat(store.stat(BUCKET, "k")).as("nothing committed here").isNull();
    assertThat(uploadFiles()).isZero();
    assertThat(multipart.holdsUploads()).isFalse();
    // A retry is answered from the completion recorded here, without sending again.
    assertThat(multipart.complete(BUCKET, "k", u.uploadId(), parts).etag()).isEqualTo(done.etag());
    assertThat(owner.received).hasSize(1);
  }

  @Test
  void complete_elsewhere_refusedByTheOwner_leavesTheUploadToRetry() throws Exception {
    Upload u = multipart.create(BUCKET, "k", null, Map.of(), Map.of());
    String e1 = upload(u, 1, data(1, 100));
    OtherOwner owner = new OtherOwner();
    multipart.deliverThrough((b, name) -> owner);
    List<CompletedPart> parts = List.of(new CompletedPart(1, e1));

    owner.etag = "abc";
    assertThatThrownBy(() -> multipart.complete(BUCKET, "k", u.uploadId(), parts, WriteCondition.ifNoneMatchStar()))
        .isInstanceOf(PreconditionFailedException.class);
    owner.refusal = new io.granary.common.error.ServiceUnavailableException("TargetOffline", "t2 is down", 5);
    assertThatThrownBy(() -> multipart.complete(BUCKET, "k", u.uploadId(), parts))
        .hasMessageContaining("t2 is down");
    assertThat(owner.received).isEmpty();
    assertThat(multipart.parts(BUCKET, u)).hasSize(1);

    owner.refusal = null;
    multipart.complete(BUCKET, "k", u.uploadId(), parts);
    assertThat(owner.received).singleElement().isEqualTo(data(1, 100));
    assertThat(uploadFiles()).isZero();
  }

  @Test
  void addPart_reuploadingAPartNumber_replacesItsFileAndRecord() throws Exception {
    Upload u = multipart.create(BUCKET, "k", null, Map.of(), Map.of());
    upload(u, 1, data(1, 1000));
    String second = upload(u, 1, data(2, 2000));
    assertThat(multipart.parts(BUCKET, u)).singleElement().satisfies(p -> {
      assertThat(p.md5()).isEqualTo(second);
      assertThat(p.size()).isEqualTo(2000);
    });
    assertThat(uploadFiles()).isEqualTo(1);
  }

  @Test
  void complete_checksPartsAsS3Does_andLeavesTheUploadWhenRefused() throws Exception {
    Upload u = multipart.create(BUCKET, "k", null, Map.of(), Map.of());
    String e1 = upload(u, 1, data(1, 1000)); // too small unless last
    String e2 = upload(u, 2, data(2, 1000));
    assertThatThrownBy(() -> multipart.complete(BUCKET, "k", u.uploadId(),
        List.of(new CompletedPart(1, e1), new CompletedPart(2, e2))))
        .isInstanceOfSatisfying(S3ApiException.class, e -> assertThat(e.code()).isEqualTo("EntityTooSmall"));
    assertThatThrownBy(() -> multipart.complete(BUCKET, "k", u.uploadId(),
        List.of(new CompletedPart(2, e2), new CompletedPart(1, e1))))
        .isInstanceOfSatisfying(S3ApiException.class, e -> assertThat(e.code()).isEqualTo("InvalidPartOrder"));
    assertThatThrownBy(() -> multipart.complete(BUCKET, "k", u.uploadId(), List.of(new CompletedPart(1, "0".repeat(32)))))
        .isInstanceOfSatisfying(S3ApiException.class, e -> assertThat(e.code()).isEqualTo("InvalidPart"));
    assertThatThrownBy(() -> multipart.complete(BUCKET, "k", u.uploadId(), List.of(new CompletedPart(7, e1))))
        .isInstanceOfSatisfying(S3ApiException.class, e -> assertThat(e.code()).isEqualTo("InvalidPart"));
    assertThatThrownBy(() -> multipart.complete(BUCKET, "k", u.uploadId(), List.of()))
        .isInstanceOfSatisfying(S3ApiException.class, e -> assertThat(e.code()).isEqualTo("MalformedXML"));
    assertThat(store.stat(BUCKET, "k")).isNull();
    // A single small part is fine: the last part may be small.
    assertThat(multipart.complete(BUCKET, "k", u.uploadId(), List.of(new CompletedPart(1, e1))).size()).isEqualTo(1000);
  }

  @Test
  void complete_failedPrecondition_is412_keepsTheObjectAndTheUpload() throws Exception {
    PutOperation put = store.beginPut(BUCKET, "k", new PutOptions(3, List.of(), true, null, Map.of()));
    put.write(Unpooled.wrappedBuffer(new byte[] {1, 2, 3}));
    ObjectMeta old = put.finish();
    Upload u = multipart.create(BUCKET, "k", null, Map.of(), Map.of());
    String e1 = upload(u, 1, data(1, 1000));
    List<CompletedPart> parts = List.of(new CompletedPart(1, e1));

    assertThatThrownBy(() -> multipart.complete(BUCKET, "k", u.uploadId(), parts, WriteCondition.ifNoneMatchStar()))
        .isInstanceOf(PreconditionFailedException.class);
    assertThatThrownBy(() -> multipart.complete(BUCKET, "k", u.uploadId(), parts, WriteCondition.ifMatch("0" + "1".repeat(31))))
        .isInstanceOf(PreconditionFailedException.class);

    assertThat(store.stat(BUCKET, "k")).isEqualTo(old);
    assertThat(read("k")).containsExactly(1, 2, 3);
    assertThat(multipart.parts(BUCKET, u)).extracting(Part::md5).containsExactly(e1); // the upload stays whole
    for (String mp : List.of("mp1", "mp2")) {
      try (Stream<Path> s = Files.walk(dir.resolve(mp).resolve("work"))) {
        assertThat(s.filter(Files::isRegularFile).toList()).isEmpty();
      }
    }
    // The right ETag completes the same upload.
    CompletedUpload now = multipart.complete(BUCKET, "k", u.uploadId(), parts,
        WriteCondition.ifMatch(old.effectiveEtag()));
    assertThat(store.stat(BUCKET, "k").effectiveEtag()).isEqualTo(now.etag());
    assertThat(read("k")).isEqualTo(data(1, 1000));
  }

  @Test
  void complete_ifMatchOnMissingObject_isNotFound_andStoresNothing() throws Exception {
    Upload u = multipart.create(BUCKET, "k", null, Map.of(), Map.of());
    String e1 = upload(u, 1, data(1, 1000));

    assertThatThrownBy(() -> multipart.complete(BUCKET, "k", u.uploadId(), List.of(new CompletedPart(1, e1)),
        WriteCondition.ifMatch("*"))).isInstanceOf(ObjectNotFoundException.class);

    assertThat(store.stat(BUCKET, "k")).isNull();
    assertThat(multipart.complete(BUCKET, "k", u.uploadId(), List.of(new CompletedPart(1, e1)),
        WriteCondition.ifNoneMatchStar()).size()).isEqualTo(1000);
  }

  @Test
  void require_unknownUpload_isNoSuchUpload404() {
    assertThatThrownBy(() -> multipart.require(BUCKET, "k", "feedface"))
        .isInstanceOfSatisfying(S3ApiException.class, e -> {
          assertThat(e.code()).isEqualTo("NoSuchUpload");
          assertThat(e.status().code()).isEqualTo(404);
        });
  }

  @Test
  void partNumber_outside1To10000_isInvalidArgument() {
    assertThat(MultipartStore.partNumber("1")).isEqualTo(1);
    assertThat(MultipartStore.partNumber("10000")).isEqualTo(10000);
    for (String bad : new String[] {"0", "10001", "-1", "x", ""}) {
      assertThatThrownBy(() -> MultipartStore.partNumber(bad))
          .isInstanceOfSatisfying(S3ApiException.class, e -> assertThat(e.code()).isEqualTo("InvalidArgument"));
    }
  }

  @Test
  void abort_removesPartsAndRecord() throws Exception {
    Upload u = multipart.create(BUCKET, "k", null, Map.of(), Map.of());
    upload(u, 1, data(1, 1000));
    multipart.abort(BUCKET, "k", u.uploadId());
    assertThat(uploadFiles()).isZero();
    assertThat(multipart.list(BUCKET, "", null, null, 10)).isEmpty();
    assertThatThrownBy(() -> multipart.abort(BUCKET, "k", u.uploadId())).isInstanceOf(S3ApiException.class);
  }

  @Test
  void list_ordersByKeyThenUploadId_withPrefixAndMarkers() throws Exception {
    Upload b1 = multipart.create(BUCKET, "b", null, Map.of(), Map.of());
    Upload b2 = multipart.create(BUCKET, "b", null, Map.of(), Map.of());
    multipart.create(BUCKET, "a", null, Map.of(), Map.of());
    multipart.create(BUCKET, "c/1", null, Map.of(), Map.of());
    List<Upload> all = multipart.list(BUCKET, "", null, null, 100);
    assertThat(all).extracting(Upload::name).containsExactly("a", "b", "b", "c/1");
    assertThat(multipart.list(BUCKET, "c/", null, null, 100)).extracting(Upload::name).containsExactly("c/1");
    assertThat(multipart.list(BUCKET, "", "b", null, 100)).extracting(Upload::name).containsExactly("c/1");
    String first = b1.uploadId().compareTo(b2.uploadId()) < 0 ? b1.uploadId() : b2.uploadId();
    assertThat(multipart.list(BUCKET, "", "b", first, 100)).extracting(Upload::name).containsExactly("b", "c/1");
    assertThat(multipart.list(BUCKET, "", null, null, 2)).hasSize(2);
  }

  @Test
  void sweep_abortsOnlyUploadsOlderThanTheTtl() throws Exception {
    Upload old = multipart.create(BUCKET, "old", null, Map.of(), Map.of());
    upload(old, 1, data(1, 1000));
    clock.advance(Duration.ofDays(6));
    Upload fresh = multipart.create(BUCKET, "fresh", null, Map.of(), Map.of());
    clock.advance(Duration.ofDays(2));

    assertThat(multipart.sweep(List.of(BUCKET), Duration.ofDays(7))).isEqualTo(1);
    assertThat(multipart.list(BUCKET, "", null, null, 10)).extracting(Upload::uploadId)
        .containsExactly(fresh.uploadId());
    assertThat(uploadFiles()).isZero();
  }

  /** An upload of one 1000-byte part completed as "k"; returns its part list. */
  private List<CompletedPart> completeOnePart(Upload u) throws Exception {
    List<CompletedPart> parts = List.of(new CompletedPart(1, upload(u, 1, data(1, 1000))));
    multipart.complete(BUCKET, "k", u.uploadId(), parts);
    return parts;
  }

  private void putObject(String name, byte[] content) throws IOException {
    PutOperation put = store.beginPut(BUCKET, name, new PutOptions(content.length, List.of(), true, null, Map.of()));
    put.write(Unpooled.wrappedBuffer(content));
    put.finish();
  }

  @Test
  void complete_retriedWithTheSameParts_answersTheSameEtag_andChangesNothing() throws Exception {
    Upload u = multipart.create(BUCKET, "k", null, Map.of(), Map.of());
    List<CompletedPart> parts = completeOnePart(u);
    ObjectMeta first = store.stat(BUCKET, "k");
    putObject("k", new byte[] {7, 7}); // overwritten meanwhile: S3 still answers the retry 200
    ObjectMeta overwritten = store.stat(BUCKET, "k");

    // Quoted ETags this time, and a condition the object no longer meets: the first answer stands.
    CompletedUpload again = multipart.complete(BUCKET, "k", u.uploadId(),
        List.of(new CompletedPart(1, "\"" + parts.get(0).etag() + "\"")), WriteCondition.ifNoneMatchStar());

    assertThat(again.etag()).isEqualTo(first.etag()).endsWith("-1");
    assertThat(again.size()).isEqualTo(1000);
    assertThat(store.stat(BUCKET, "k")).isEqualTo(overwritten);
    assertThat(read("k")).containsExactly(7, 7);
    assertThat(uploadFiles()).isZero();
  }

  @Test
  void complete_retriedWithOtherParts_isInvalidPart_andChangesNothing() throws Exception {
    Upload u = multipart.create(BUCKET, "k", null, Map.of(), Map.of());
    completeOnePart(u);
    ObjectMeta first = store.stat(BUCKET, "k");

    assertThatThrownBy(() -> multipart.complete(BUCKET, "k", u.uploadId(), List.of(new CompletedPart(1, "0".repeat(32)))))
        .isInstanceOfSatisfying(S3ApiException.class, e -> {
          assertThat(e.code()).isEqualTo("InvalidPart");
          assertThat(e.status().code()).isEqualTo(400);
        });
    assertThatThrownBy(() -> multipart.complete(BUCKET, "k", u.uploadId(), List.of()))
        .isInstanceOfSatisfying(S3ApiException.class, e -> assertThat(e.code()).isEqualTo("InvalidPart"));
    assertThat(store.stat(BUCKET, "k")).isEqualTo(first);
  }

  @Test
  void complete_retriedAfterTheStoreIsReopened_answersTheSameEtag() throws Exception {
    Upload u = multipart.create(BUCKET, "k", null, Map.of(), Map.of());
    List<CompletedPart> parts = completeOnePart(u);
    String etag = store.stat(BUCKET, "k").etag();
    store.close(); // a target restart: the record is in RocksDB
    open();

    assertThat(multipart.complete(BUCKET, "k", u.uploadId(), parts).etag()).isEqualTo(etag);
  }

  @Test
  void complete_retriedForAnotherKey_isNoSuchUpload() throws Exception {
    Upload u = multipart.create(BUCKET, "k", null, Map.of(), Map.of());
    List<CompletedPart> parts = completeOnePart(u);

    assertThatThrownBy(() -> multipart.complete(BUCKET, "other", u.uploadId(), parts))
        .isInstanceOfSatisfying(S3ApiException.class, e -> assertThat(e.code()).isEqualTo("NoSuchUpload"));
    assertThat(store.stat(BUCKET, "other")).isNull();
  }

  @Test
  void sweep_forgetsCompletionsPastTheRetryWindow_only() throws Exception {
    Upload u = multipart.create(BUCKET, "k", null, Map.of(), Map.of());
    List<CompletedPart> parts = completeOnePart(u);
    clock.advance(Duration.ofHours(23));
    multipart.sweep(List.of(BUCKET), Duration.ofDays(7));
    assertThat(multipart.complete(BUCKET, "k", u.uploadId(), parts).size()).isEqualTo(1000);

    clock.advance(Duration.ofHours(2)); // 25 h after the completion
    multipart.sweep(List.of(BUCKET), Duration.ofDays(7));

    assertThatThrownBy(() -> multipart.complete(BUCKET, "k", u.uploadId(), parts))
        .isInstanceOfSatisfying(S3ApiException.class, e -> assertThat(e.code()).isEqualTo("NoSuchUpload"));
  }

  @Test
  void sweep_ofADestroyedBucket_forgetsItsCompletionsAtOnce() throws Exception {
    Upload u = multipart.create(BUCKET, "k", null, Map.of(), Map.of());
    List<CompletedPart> parts = completeOnePart(u);

    multipart.sweep(List.of(BUCKET), Duration.ZERO); // what destroying the bucket does

    assertThatThrownBy(() -> multipart.complete(BUCKET, "k", u.uploadId(), parts))
        .isInstanceOfSatisfying(S3ApiException.class, e -> assertThat(e.code()).isEqualTo("NoSuchUpload"));
  }
}
