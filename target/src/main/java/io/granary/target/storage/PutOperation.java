package io.granary.target.storage;

import io.granary.clustermap.bucket.ChecksumType;
import io.granary.common.error.ChecksumMismatchException;
import io.granary.common.error.IncompleteBodyException;
import io.granary.target.checksum.ContentHasher;
import io.granary.target.meta.CommitIntent;
import io.granary.target.meta.FlexibleChecksum;
import io.granary.target.meta.ObjectMeta;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * One PUT in progress: the body streams into a work file while every checksum it needs is computed; then
 * {@link #finish} makes it durable and commits it, or {@link #discard} removes every trace of it.
 *
 * <p>Threads: {@link #write} runs on the connection's event loop (page-cache writes of one chunk);
 * {@link #finish} and {@link #discard} block on disk and run on the disk executor. Calls never overlap.
 */
public final class PutOperation implements BodySink {
  private static final long GROW_STEP = 1L << 20;
  private final ObjectStore store;
  private final ObjectLocation location;
  private final Path workFile;              // absolute path of the work file
  private final FileChannel channel;        // open on workFile until finish or discard
  private final ContentHasher bucketHasher; // the bucket's checksum, stored in metadata
  private final List<ContentHasher> extraHashers = new ArrayList<>(); // client checksums of other types
  private final ContentHasher md5;           // the S3 ETag, when the PUT asks for one; else null
  private final PutOptions options;         // declared length, expected checksums, S3 attributes
  private long written;                     // body bytes written so far
  private long reserved;                    // bytes counted in the mountpath's work usage for this PUT
  private boolean closed;

  PutOperation(ObjectStore store, ObjectLocation location, Path workFile, FileChannel channel, PutOptions options) {
    this.store = store;
    this.location = location;
    this.workFile = workFile;
    this.channel = channel;
    this.options = options;
    this.reserved = Math.max(options.declaredLength(), 0);
    location.mountpath().usage().addWork(reserved);
    this.bucketHasher = ContentHasher.of(location.bucket().checksum());
    for (ExpectedChecksum e : options.expected()) {
      if (e.type() != bucketHasher.type() && extraHashers.stream().noneMatch(h -> h.type() == e.type())) {
        extraHashers.add(ContentHasher.of(e.type()));
      }
    }
    ChecksumType flexible = options.flexible();
    if (flexible != null && flexible != bucketHasher.type()
        && extraHashers.stream().noneMatch(h -> h.type() == flexible)) {
      extraHashers.add(ContentHasher.of(flexible));
    }
    ContentHasher existingMd5 = bucketHasher.type() == ChecksumType.MD5 ? bucketHasher
        : extraHashers.stream().filter(h -> h.type() == ChecksumType.MD5).findFirst().orElse(null);
    if (options.md5Etag() && existingMd5 == null) {
      existingMd5 = ContentHasher.of(ChecksumType.MD5);
      extraHashers.add(existingMd5);
    }
    this.md5 = options.md5Etag() ? existingMd5 : null;
  }

  public ObjectLocation location() {
    return location;
  }

  public long written() {
    return written;
  }

  /** Appends a body chunk: hashes it in place and writes it to the work file. Does not release {@code buf}. */
  @Override
  public void write(ByteBuf buf) throws IOException {
    int n = buf.readableBytes();
    if (n == 0) {
      return;
    }
    if (written + n > reserved) { // a body of unknown length: reserve in steps so the guard is asked rarely
      long more = Math.max(written + n - reserved, GROW_STEP);
      store.spaceGuard().grow(location.mountpath(), more);
      location.mountpath().usage().addWork(more);
      reserved += more;
    }
    for (ByteBuffer nio : buf.nioBuffers(buf.readerIndex(), n)) {
      bucketHasher.update(nio);
      for (ContentHasher h : extraHashers) {
        h.update(nio);
      }
      while (nio.hasRemaining()) {
        channel.write(nio);
      }
    }
    written += n;
  }

  /**
   * Completes the PUT: checks length and client checksums, fsyncs, and commits (see
   * {@link ObjectStore#commit}). On any failure the work file is removed and nothing is stored.
   *
   * @return the committed metadata
   */
  public ObjectMeta finish() throws IOException {
    return finish((staged, meta) -> meta);
  }

  /** What runs between a verified, fsynced body and its commit (a remote bucket's write-through). */
  @FunctionalInterface
  public interface BeforeCommit {
    /** Returns the metadata to commit; throwing stores nothing. */
    ObjectMeta apply(Staged staged, ObjectMeta meta) throws IOException;
  }

  /**
   * As {@link #finish()}, running {@code beforeCommit} just before the commit. The PUT's precondition
   * ({@link PutOptions#condition}) is decided at the commit, under the object's lock; for a remote bucket, whose
   * {@code beforeCommit} writes the remote store, it is checked before that write instead, with the other
   * conditional writes of the object held off until the commit ({@link ObjectStore#writeChecked}).
   */
  public ObjectMeta finish(BeforeCommit beforeCommit) throws IOException {
    Staged staged = finishStaged();
    try {
      ObjectMeta built = new ObjectMeta(staged.size(), bucketHasher.type(), staged.sums().get(bucketHasher.type()),
          System.currentTimeMillis(), md5 == null ? null : staged.sums().get(ChecksumType.MD5), options.contentType(),
          options.userMeta(), options.headers(), List.of(), null, options.acl(), flexible(staged));
      WriteCondition condition = options.condition();
      ObjectMeta meta;
      if (location.bucket().isRemote()) {
        meta = store.writeChecked(location, condition, () -> {
          ObjectMeta m = beforeCommit.apply(staged, built);
          store.commitWorkFile(location, workFile, m);
          return m;
        });
      } else {
        meta = beforeCommit.apply(staged, built);
        store.commitWorkFile(location, workFile, meta, condition);
      }
      releaseReservation();
      return meta;
    } catch (IOException | RuntimeException e) {
      discard();
      throw e;
    }
  }

  /** The flexible checksum the PUT keeps, from the verified sums; null when the client gave none. */
  private FlexibleChecksum flexible(Staged staged) {
    ChecksumType t = options.flexible();
    return t == null ? null : FlexibleChecksum.fullObject(t, staged.sums().get(t));
  }

  /**
   * Completes the body as exactly {@code meta} (a copy moved from another target, its record kept whole), committed
   * only when {@code condition} accepts the copy held now. Disk executor only.
   *
   * @return whether it was committed; when not, nothing is stored and the work file is gone
   */
  public boolean finishAs(ObjectMeta meta, ObjectStore.CommitCondition condition) throws IOException {
    Staged staged = finishStaged();
    try {
      String relWork = location.mountpath().root().relativize(staged.workFile()).toString();
      return store.commit(new CommitIntent(location.key(), relWork, location.relativeFile(), meta), location,
          condition);
    } catch (IOException | RuntimeException e) {
      discard();
      throw e;
    }
  }

  /**
   * Completes the body without committing it as an object: checks length and client checksums and fsyncs. The
   * caller owns the work file from then on (a multipart part moves it into its upload). On failure the work file
   * is removed.
   */
  public Staged finishStaged() throws IOException {
    try {
      if (options.declaredLength() >= 0 && written != options.declaredLength()) {
        throw new IncompleteBodyException(written, options.declaredLength());
      }
      Map<ChecksumType, String> sums = new EnumMap<>(ChecksumType.class);
      sums.put(bucketHasher.type(), bucketHasher.hex());
      for (ContentHasher h : extraHashers) {
        sums.put(h.type(), h.hex());
      }
      for (ExpectedChecksum e : options.expected()) {
        String actual = sums.get(e.type());
        if (!actual.equalsIgnoreCase(e.hex())) {
          throw new ChecksumMismatchException(e.type().wireName(), e.hex(), actual);
        }
      }
      channel.force(true);
      channel.close();
      closed = true;
      releaseReservation(); // the caller owns the file now (a multipart part, counted with its upload)
      return new Staged(workFile, written, sums);
    } catch (IOException | RuntimeException e) {
      discard();
      throw e;
    }
  }

  /**
   * A complete, verified, fsynced body in a work file.
   *
   * @param workFile the work file holding it
   * @param size its length
   * @param sums its checksums by type (the bucket's, the client's, MD5 when asked for)
   */
  public record Staged(Path workFile, long size, Map<ChecksumType, String> sums) {
  }

  /** Stops counting this PUT's work file in the mountpath's usage. Idempotent. */
  private void releaseReservation() {
    if (reserved > 0) {
      location.mountpath().usage().addWork(-reserved);
      reserved = 0;
    }
  }

  /** Abandons the PUT: closes and deletes the work file. Idempotent. */
  @Override
  public void discard() {
    releaseReservation();
    try {
      if (!closed) {
        closed = true;
        channel.close();
      }
    } catch (IOException ignored) {
      // deleting anyway
    }
    try {
      Files.deleteIfExists(workFile);
    } catch (IOException e) {
      store.log().warn("node={} could not remove work file {}: {}", store.nodeId(), workFile, e.toString());
    }
  }
}
