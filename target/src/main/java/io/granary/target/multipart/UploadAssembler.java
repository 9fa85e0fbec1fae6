package io.granary.target.multipart;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.target.checksum.ContentHasher;
import io.granary.target.meta.FlexibleChecksum;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.ObjectLocation;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.WriteCondition;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Turns the parts of a completed upload into its object: copies them in order into one work file on the object's
 * HRW mountpath while computing the bucket checksum, the ETag ({@code md5(part md5s)-N}) and a flexible checksum,
 * then commits it here (a remote bucket's written through first) or sends it to the key's owner
 * ({@link OwnerDelivery}). Memory: one 1 MiB direct buffer, whatever the object's size. Blocking: the disk pool,
 * under the upload's lock.
 */
final class UploadAssembler {
  private final ObjectStore store;
  private final Clock clock;

  UploadAssembler(ObjectStore store, Clock clock) {
    this.store = store;
    this.clock = clock;
  }

  /**
   * Assembles {@code parts} (checked, in order) of {@code upload}, whose files are in {@code dir}, and commits the
   * object: here when {@code away} is null (a remote bucket's through {@code writer} first), else on the owner
   * {@code away} names. Throws what refuses it (the condition's answer, 503); the work file never stays.
   */
  ObjectMeta assemble(BucketProps bucket, Upload upload, Path dir, List<Part> parts, WriteCondition condition,
      OwnerDelivery.Owner away, MultipartStore.RemoteWriter writer) throws IOException {
    ObjectLocation loc = store.locate(bucket, upload.name()); // assembled on the mountpath the object goes to
    Path work = store.newWorkFile(loc);
    ContentHasher hasher = ContentHasher.of(bucket.checksum());
    UploadChecksum flexible = upload.checksum();
    // A FULL_OBJECT checksum is of the content itself: computed while the parts are copied, not combined from parts.
    ContentHasher whole = flexible == null || flexible.kind() != FlexibleChecksum.Kind.FULL_OBJECT ? null
        : flexible.algorithm() == hasher.type() ? hasher : ContentHasher.of(flexible.algorithm());
    MessageDigest md5OfMd5s = md5();
    long total = 0;
    List<Long> sizes = new ArrayList<>(parts.size());
    ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(1 << 20, 1 << 20);
    try (FileChannel out = FileChannel.open(work, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      // A zero-based view of exactly this buffer's memory: internalNioBuffer would expose the whole pooled chunk.
      ByteBuffer nio = buf.nioBuffer(0, buf.capacity());
      for (Part p : parts) {
        md5OfMd5s.update(HexFormat.of().parseHex(p.md5()));
        try (FileChannel in = FileChannel.open(dir.resolve(p.file()), StandardOpenOption.READ)) {
          if (in.size() != p.size()) {
            throw new IOException("part " + p.number() + " of upload " + upload.uploadId() + " is " + in.size()
                + " bytes on disk but " + p.size() + " in its record");
          }
          while (true) {
            nio.clear();
            if (in.read(nio) < 0) {
              break;
            }
            nio.flip();
            hasher.update(nio);
            if (whole != null && whole != hasher) {
              whole.update(nio);
            }
            while (nio.hasRemaining()) {
              out.write(nio);
            }
          }
        }
        total += p.size();
        sizes.add(p.size());
      }
      out.force(true);
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(work);
      throw e;
    } finally {
      buf.release();
    }
    String etag = HexFormat.of().formatHex(md5OfMd5s.digest()) + "-" + parts.size();
    ObjectMeta meta = new ObjectMeta(total, hasher.type(), hasher.hex(), clock.millis(), etag, upload.contentType(),
        upload.userMeta(), upload.headers(), sizes, null, upload.acl(), withPartChecksums(
            whole != null ? FlexibleChecksum.fullObject(flexible.algorithm(), whole.hex()) : composite(flexible, parts),
            parts));
    try {
      if (away != null) {
        return deliver(bucket, upload, work, meta, condition, away, writer);
      }
      if (!bucket.isRemote()) {
        store.commitWorkFile(loc, work, meta, condition);
        return meta;
      }
      if (writer == null) {
        throw new IOException("no remote writer for completed uploads of remote bucket " + bucket.bucket());
      }
      ObjectMeta assembled = meta;
      return store.writeChecked(loc, condition, () -> { // the remote is written only when the condition holds
        ObjectMeta remote = writer.upload(bucket, upload.name(), work, assembled);
        store.commitWorkFile(loc, work, remote);
        return remote;
      });
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(work);
      throw e;
    }
  }

  /**
   * Commits the assembled {@code work} on the key's owner, another target: a remote bucket's object is written through
   * here first (its condition was checked on the owner before), a local bucket's is committed there only if
   * {@code condition} holds at the owner's commit. Returns once the owner has it; the work file goes either way.
   */
  private ObjectMeta deliver(BucketProps bucket, Upload upload, Path work, ObjectMeta meta, WriteCondition condition,
      OwnerDelivery.Owner away, MultipartStore.RemoteWriter writer) throws IOException {
    try {
      if (!bucket.isRemote()) {
        away.deliver(work, meta, condition);
        return meta;
      }
      if (writer == null) {
        throw new IOException("no remote writer for completed uploads of remote bucket " + bucket.bucket());
      }
      ObjectMeta remote = writer.upload(bucket, upload.name(), work, meta);
      away.deliver(work, remote, WriteCondition.NONE);
      return remote;
    } finally {
      Files.deleteIfExists(work);
    }
  }

  /**
   * The COMPOSITE checksum of an upload's parts: the checksum, of the upload's algorithm, of the parts' binary
   * checksums one after another (as S3 computes it); null when the upload has none or a part was stored without one.
   */
  static FlexibleChecksum composite(UploadChecksum flexible, List<Part> parts) {
    if (flexible == null || flexible.kind() != FlexibleChecksum.Kind.COMPOSITE
        || parts.stream().anyMatch(p -> p.checksum() == null)) {
      return null;
    }
    ContentHasher of = ContentHasher.of(flexible.algorithm());
    for (Part p : parts) {
      of.update(ByteBuffer.wrap(HexFormat.of().parseHex(p.checksum())));
    }
    return new FlexibleChecksum(flexible.algorithm(), of.hex(), FlexibleChecksum.Kind.COMPOSITE);
  }

  /**
   * {@code checksum} keeping its parts' checksums, so that GetObjectAttributes and a GET of one part answer them
   * after the upload is gone; as it is when a part was stored without one.
   */
  static FlexibleChecksum withPartChecksums(FlexibleChecksum checksum, List<Part> parts) {
    if (checksum == null || parts.stream().anyMatch(p -> p.checksum() == null)) {
      return checksum;
    }
    return checksum.withParts(parts.stream().map(Part::checksum).toList());
  }

  private static MessageDigest md5() {
    try {
      return MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
