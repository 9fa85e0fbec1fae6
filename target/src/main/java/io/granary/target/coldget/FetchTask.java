package io.granary.target.coldget;

import io.granary.backend.Backend;
import io.granary.backend.BackendException;
import io.granary.backend.RemoteObject;
import io.granary.backend.RemoteRead;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.Provider;
import io.granary.common.error.ChecksumMismatchException;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.exec.BoundedExecutor;
import io.granary.target.CacheConfig;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.meta.RemoteVersion;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.SpaceReservation;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Downloads one object into its fetch's work file, verifies it and commits it. Runs on the cold pool. Objects of
 * at least {@link CacheConfig#parallelThreshold()} are read as parallel ranges (the first answer, a whole-object
 * GET, supplies the first chunk and the size); a read cut short or stalled resumes where it stopped, pinned to
 * the same remote version, a few times before the fetch fails.
 */
final class FetchTask implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(FetchTask.class);
  private static final int IO_BUFFER = 256 << 10;
  private static final int RESUMES = 3;
  private static final ThreadLocal<ByteBuffer> BUFFER = ThreadLocal.withInitial(
      () -> ByteBuffer.allocateDirect(IO_BUFFER));

  private final Fetch fetch;
  private final Backend backend;
  private final ObjectStore store;
  private final CacheConfig config;
  private final BoundedExecutor rangePool;
  private final ColdStats stats;
  private final Runnable onEnd;
  private final String nodeId;

  FetchTask(String nodeId, Fetch fetch, Backend backend, ObjectStore store, CacheConfig config,
      BoundedExecutor rangePool, ColdStats stats, Runnable onEnd) {
    this.nodeId = nodeId;
    this.fetch = fetch;
    this.backend = backend;
    this.store = store;
    this.config = config;
    this.rangePool = rangePool;
    this.stats = stats;
    this.onEnd = onEnd;
  }

  @Override
  public void run() {
    BucketProps bucket = fetch.bucket();
    Provider provider = bucket.bucket().provider();
    String name = fetch.location().name();
    long t0 = System.nanoTime();
    FileChannel ch = null;
    SpaceReservation space = null;
    try {
      RemoteRead first = backend.read(bucket.bucket().name(), name, 0, -1, null);
      stats.firstByte(provider, System.nanoTime() - t0);
      RemoteObject object = first.object();
      long size = object.size();
      try {
        space = store.reserve(fetch.location(), size); // 507 when it does not fit; counted while downloading
        ch = FileChannel.open(fetch.workFile(), StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
            StandardOpenOption.WRITE);
      } catch (IOException | RuntimeException e) {
        first.close();
        throw e;
      }
      fetch.opened(ch, object);
      ContentVerifier verifier = new ContentVerifier(bucket.checksum(), object);
      Sequencer seq = new Sequencer(ch, size, verifier, fetch, rangePool::execute);
      if (size >= config.parallelThreshold() && size > config.parallelChunk() && config.parallelStreams() > 1) {
        copy(first, object, ch, seq, 0, config.parallelChunk());
        first.close(); // aborts the rest of the whole-object GET
        parallel(object, ch, seq, config.parallelChunk(), size);
      } else {
        copy(first, object, ch, seq, 0, size);
        first.close();
      }
      if (size == 0) {
        seq.completed(0, 0);
      }
      if (!seq.complete()) {
        throw new IOException("fetch of " + name + " ended before all " + size + " bytes arrived");
      }
      seq.awaitHashed();
      String checksum = verifier.verify();
      fetch.verifiedContent(size); // clients may have the last byte now; durability is the commit's business
      ch.force(true);
      ObjectMeta meta = new ObjectMeta(size, bucket.checksum(), checksum, System.currentTimeMillis(),
          etagOf(bucket, object), object.contentType(), object.userMeta(), Map.of(), List.of(),
          new RemoteVersion(object.etag(), object.version(), object.lastModified()));
      store.commitWorkFile(fetch.location(), fetch.workFile(), meta);
      stats.fetched(provider, size, System.nanoTime() - t0);
      fetch.succeed(meta);
    } catch (Throwable t) {
      discardWorkFile();
      if (t instanceof ChecksumMismatchException) {
        stats.checksumError(provider);
        log.error("node={} bucket={} object={}: remote content failed verification, not cached: {}", nodeId,
            bucket.bucket(), name, t.getMessage());
      } else if (!(t instanceof BackendException b && b.kind() == BackendException.Kind.NOT_FOUND)) {
        stats.failed(provider);
        log.warn("node={} bucket={} object={}: cold GET failed: {}", nodeId, bucket.bucket(), name, t.toString());
      }
      fetch.fail(t);
    } finally {
      if (space != null) {
        space.close();
      }
      onEnd.run();
      fetch.release();
    }
  }

  /** The ETag clients see: S3's own; for GCS the content MD5 (its etag is opaque, S3 clients expect an MD5). */
  static String etagOf(BucketProps bucket, RemoteObject object) {
    if (bucket.bucket().provider() == Provider.GCP && object.md5() != null) {
      return object.md5();
    }
    return object.etag() != null ? object.etag() : object.md5();
  }

  /** Reads the rest of the object as parallel chunks: this thread plus up to streams - 1 helpers. */
  private void parallel(RemoteObject object, FileChannel ch, Sequencer seq, long from, long size) throws Exception {
    AtomicLong next = new AtomicLong(from);
    List<CompletableFuture<Void>> helpers = new ArrayList<>();
    for (int i = 1; i < config.parallelStreams(); i++) {
      helpers.add(rangePool.submit(() -> {
        chunks(object, ch, seq, next, size);
        return null;
      }));
    }
    Exception failure = null;
    try {
      chunks(object, ch, seq, next, size);
    } catch (Exception e) {
      failure = e;
      next.set(size); // the helpers stop at their next chunk
    }
    for (CompletableFuture<Void> h : helpers) {
      try {
        h.join();
      } catch (RuntimeException e) {
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        // A helper the pool could not take is no failure: the chunks it would have read were read here.
        if (failure == null && !(cause instanceof ServiceUnavailableException)) {
          failure = cause instanceof Exception ex ? ex : new IOException(cause);
          next.set(size);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private void chunks(RemoteObject object, FileChannel ch, Sequencer seq, AtomicLong next, long size)
      throws IOException {
    long chunk = config.parallelChunk();
    for (long off = next.getAndAdd(chunk); off < size; off = next.getAndAdd(chunk)) {
      if (fetch.finished().isDone()) {
        return;
      }
      copy(null, object, ch, seq, off, Math.min(chunk, size - off));
    }
  }

  /**
   * Copies {@code [offset, offset + length)} into the work file from {@code read} (null: open a ranged read),
   * resuming a read that breaks off.
   */
  private void copy(RemoteRead read, RemoteObject object, FileChannel ch, Sequencer seq, long offset, long length)
      throws IOException {
    String bucket = fetch.bucket().bucket().name();
    String name = fetch.location().name();
    ByteBuffer buf = BUFFER.get();
    long done = 0;
    int resumes = 0;
    RemoteRead r = read;
    try {
      while (done < length) {
        if (r == null) {
          r = backend.read(bucket, name, offset + done, length - done, object);
        }
        try {
          buf.clear().limit((int) Math.min(buf.capacity(), length - done));
          int n = r.read(buf);
          if (n < 0) { // a backend reports a short body itself; this guards against one that does not
            throw new BackendException(BackendException.Kind.TRUNCATED, 0, "remote body of " + name
                + " ended at " + (offset + done) + " of " + object.size());
          }
          buf.flip();
          long pos = offset + done;
          while (buf.hasRemaining()) {
            pos += ch.write(buf, pos);
          }
          seq.completed(offset + done, n);
          done += n;
        } catch (BackendException e) {
          if ((e.kind() != BackendException.Kind.TRUNCATED && e.kind() != BackendException.Kind.UNAVAILABLE)
              || ++resumes > RESUMES) {
            throw e;
          }
          closeQuietly(r);
          r = null;
          sleep(100L << resumes);
        }
      }
    } finally {
      if (r != null && r != read) {
        closeQuietly(r);
      }
    }
  }

  private void discardWorkFile() {
    try {
      Files.deleteIfExists(fetch.workFile());
    } catch (IOException e) {
      log.warn("node={} could not remove work file {}: {}", nodeId, fetch.workFile(), e.toString());
    }
  }

  private static void closeQuietly(RemoteRead r) {
    try {
      r.close();
    } catch (IOException | RuntimeException ignored) {
      // aborting a broken read
    }
  }

  private static void sleep(long ms) throws IOException {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while backing off");
    }
  }
}
