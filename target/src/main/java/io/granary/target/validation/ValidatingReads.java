package io.granary.target.validation;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.error.ApiException;
import io.granary.common.error.InternalErrorException;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.ByteRange;
import io.granary.common.http.HttpExchange;
import io.granary.target.checksum.FileHashing;
import io.granary.target.http.WarmValidation;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.StoredObject;
import io.netty.handler.codec.http.HttpResponse;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warm GETs of buckets with {@code checksum.validateWarmGet}: the bytes served are re-hashed against the object's
 * recorded checksum, off the event loop (the disk pool), and a mismatch is repaired ({@link CopyVerifier}).
 *
 * <p>How, by size (docs/protection.md#validating-warm-gets):
 * <ul>
 *   <li>Objects up to {@link #VERIFY_FIRST} bytes (any range of them) are hashed whole before the head is sent, then
 *       sent zero-copy from the page cache the hash just filled. A mismatch is answered transparently: the bad copy
 *       is repaired (from a mirror copy) or dropped (remote bucket) and the GET served anew from the repaired copy
 *       or the remote; with nothing to repair from, a 500 with no body. A client never sees a wrong byte.</li>
 *   <li>Larger objects asked for whole are streamed ({@link ValidatingStream}): each chunk read and hashed on a disk
 *       thread, then written; the last chunk is held back until the hash is known, and on a mismatch the
 *       connection is closed instead, so the client sees a body short of its Content-Length, never a whole wrong
 *       object. The repair then runs for the next GET.</li>
 *   <li>A range of a larger object is sent unvalidated, zero-copy: the checksum covers only the whole object, and
 *       hashing gigabytes to serve a few kilobytes would turn every ranged read into a full one. Scrubs cover
 *       what ranged readers read.</li>
 * </ul>
 */
public final class ValidatingReads implements WarmValidation {
  private static final Logger log = LoggerFactory.getLogger(ValidatingReads.class);
  /** Objects up to this size are hashed before their first byte is sent. */
  public static final long VERIFY_FIRST = 1 << 20;

  private final String nodeId;
  private final BoundedExecutor disk;
  private final CopyVerifier verifier;

  public ValidatingReads(String nodeId, BoundedExecutor disk, CopyVerifier verifier) {
    this.nodeId = nodeId;
    this.disk = disk;
    this.verifier = verifier;
  }

  @Override
  public boolean applies(BucketProps bucket, ObjectMeta meta) {
    return bucket.protection().validateWarmGet() && !meta.checksum().isEmpty() && meta.size() > 0;
  }

  @Override
  public Served serve(HttpExchange ex, HttpResponse head, StoredObject obj, ByteRange range, BucketProps bucket,
      String name, Runnable again) {
    long size = obj.meta().size();
    long offset = range == null ? 0 : range.offset();
    long length = range == null ? size : range.length();
    if (size <= VERIFY_FIRST) {
      verifyFirst(ex, head, obj, offset, length, bucket, name, again);
      return null;
    }
    if (offset != 0 || length != size) {
      ex.sendFile(head, obj.channel(), offset, length);
      return null;
    }
    ValidatingStream s = new ValidatingStream(ex, head, obj, disk, () -> mismatched(bucket, name));
    s.start();
    return s;
  }

  private void verifyFirst(HttpExchange ex, HttpResponse head, StoredObject obj, long offset, long length,
      BucketProps bucket, String name, Runnable again) {
    ObjectMeta meta = obj.meta();
    FileChannel ch = obj.channel();
    disk.submit(() -> FileHashing.hash(ch, meta.size(), meta.checksumType())).whenComplete((hex, err) -> ex.onLoop(
        () -> {
          if (err != null) {
            close(ch);
            Throwable cause = unwrap(err);
            ex.sendError(cause instanceof ApiException ? cause : new InternalErrorException("reading "
                + bucket.bucket() + "/" + name + " to validate it failed: " + cause, cause)); // 503 Busy stays 503
          } else if (hex.equalsIgnoreCase(meta.checksum())) {
            ex.sendFile(head, ch, offset, length);
          } else {
            close(ch);
            mismatched(bucket, name).whenComplete((v, e) -> ex.onLoop(() -> {
              if (again != null && v != null && (v.outcome() == CopyVerifier.Outcome.REPAIRED
                  || v.outcome() == CopyVerifier.Outcome.REFETCH || v.outcome() == CopyVerifier.Outcome.CLEAN)) {
                again.run();
              } else {
                ex.sendError(new InternalErrorException(bucket.bucket() + "/" + name + " on " + nodeId
                    + ": the content does not match its " + meta.checksumType().wireName() + " checksum and no "
                    + "intact copy is left to serve", null));
              }
            }));
          }
        }));
  }

  /** Runs the check and repair of every copy on a disk thread; its verdict, or failed when it failed. */
  private CompletableFuture<CopyVerifier.Verdict> mismatched(BucketProps bucket, String name) {
    return disk.submit(() -> {
      try {
        return verifier.verify(bucket, name, CopyVerifier.Source.GET);
      } catch (IOException | RuntimeException e) {
        log.warn("node={} bucket={} object={}: repair after a checksum mismatch failed: {}", nodeId, bucket.bucket(),
            name, e.toString());
        throw e;
      }
    });
  }

  private static Throwable unwrap(Throwable t) {
    return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
  }

  static void close(FileChannel ch) {
    try {
      ch.close();
    } catch (IOException e) {
      // a read-only channel: nothing was written that closing could lose
    }
  }
}
