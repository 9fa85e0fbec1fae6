package io.granary.target.coldget;

import io.granary.backend.Backend;
import io.granary.backend.BackendException;
import io.granary.backend.RemoteObject;
import io.granary.backend.RemoteRead;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.Provider;
import io.granary.common.error.ChecksumMismatchException;
import io.granary.common.error.InsufficientStorageException;
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
 * Downloads one object into its fetch's work file, verifies it and commits it. Runs on the cold pool. Objects
 * larger than {@link CacheConfig#parallelThreshold()} are read as parallel ranges (the first answer, a ranged GET
 * of the threshold's bytes, supplies the front of the object and its size); a read cut short or stalled resumes
 * where it stopped, pinned to the same remote version, a few times before the fetch fails. When the first answer
 * carries nothing to verify the content against (an S3 multipart upload's ETag is no MD5), or only an MD5 while the
 * bucket keeps a checksum S3 may keep too (then one hash can do both jobs), the remote is asked for the
 * whole-content checksum it keeps while the bytes stream in; hashing starts once it answers.
 */
final class FetchTask implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(FetchTask.class);
  private static final int IO_BUFFER = 256 << 10;
  private static final int RESUMES = 3;
  /** How long the fetch holds back after its first piece for the waiting clients' first bytes to go out. */
  private static final long FIRST_BYTES_WAIT_MS = 10;
  /** How long a fetch that finds its mountpath full waits for eviction to make room before failing with 507. */
  static final long ROOM_WAIT_MS = 2000;
  private static final long ROOM_POLL_MS = 20;
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
  private final long t0 = System.nanoTime();
  private RemoteRead first; // the first answer; then the work file and its space (begin hands them to run)
  private FileChannel ch;
  private SpaceReservation space;
  private Sequencer seq;
  private ChecksumLookup checksumLookup; // when the first answer had nothing to verify against (see above)
  private long prefix; // bytes of the first answer written on the event loop, before the task ran

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

  /**
   * Takes the fetch's first answer, received on the event loop that sent it ({@link LoopGet}): reserves the space,
   * creates the work file and lets the waiting clients start, all without leaving the loop, so their response heads
   * go out at once. When the mountpath has no room right now, the cold thread waits for eviction instead
   * ({@link #run}). Returns false when that failed: the fetch has ended and the task must not run.
   */
  boolean open(RemoteRead firstRead) {
    try {
      answered(firstRead);
      try {
        space = store.reserve(fetch.location(), first.object().size());
      } catch (InsufficientStorageException full) {
        return true; // the cold thread waits for room (run)
      }
      begin();
      writePrefix();
      return true;
    } catch (Throwable t) {
      end(t);
      return false;
    }
  }

  /** Ends a fetch whose task will never run (the pool refused it), with {@code cause}. */
  void abandon(Throwable cause) {
    end(cause);
  }

  /** Opens the first read unless {@link #open} took one, then downloads, verifies and commits the object. */
  @Override
  public void run() {
    try {
      if (first == null) {
        answered(openFirst(fetch.bucket().bucket().name(), fetch.location().name()));
      }
      if (ch == null) {
        space = reserveWaiting(first.object().size());
        begin();
      }
      if (seq.verifier() == null) {
        lookUpChecksum();
      }
      transfer();
      end(null);
    } catch (Throwable t) {
      end(t);
    }
  }

  private void answered(RemoteRead firstRead) {
    first = firstRead;
    stats.firstByte(fetch.bucket().bucket().provider(), System.nanoTime() - t0);
  }

  /**
   * Reserves room for the object, waiting up to {@link #ROOM_WAIT_MS} while the mountpath is full: the refusal
   * starts an eviction run, which needs a moment to free cached copies, and a cold GET that waits for it serves
   * the client where an immediate 507 would fail a reader that only meets a cache in churn. Cold thread only.
   */
  private SpaceReservation reserveWaiting(long size) throws IOException {
    long deadline = System.nanoTime() + ROOM_WAIT_MS * 1_000_000;
    while (true) {
      try {
        return store.reserve(fetch.location(), size); // 507 when it does not fit; counted while downloading
      } catch (InsufficientStorageException full) {
        if (System.nanoTime() > deadline) {
          throw full;
        }
        sleep(ROOM_POLL_MS);
      }
    }
  }

  /** Creates the work file in the reserved space and lets the waiting clients start. */
  private void begin() throws IOException {
    long size = first.object().size();
    ch = FileChannel.open(fetch.workFile(), StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
        StandardOpenOption.WRITE);
    seq = new Sequencer(ch, size, fetch, rangePool::execute);
    RemoteObject object = first.object();
    boolean vouched = object.md5() != null || object.crc32c() != null || size == 0;
    // A whole-content checksum of the bucket's type spares hashing MD5 too: worth a question for an object of a
    // parallel chunk or more, whose transfer outlasts the answer and whose MD5 costs milliseconds of CPU.
    boolean ask = size >= config.parallelChunk()
        && ContentVerifier.mayBeSparedMd5(fetch.bucket().checksum(), object);
    if (vouched && !ask) {
      seq.hashWith(new ContentVerifier(fetch.bucket().checksum(), object));
    }
    fetch.opened(ch, object);
  }

  /**
   * Asks the remote for the whole-object checksum it keeps; hashing starts once it answers, against that checksum
   * or, when it is of no use, the first answer's MD5. Cold thread only.
   */
  private void lookUpChecksum() {
    RemoteObject object = first.object();
    checksumLookup = ChecksumLookup.start(rangePool, backend, fetch.bucket().bucket().name(), fetch.location().name(),
        object, full -> seq.hashWith(new ContentVerifier(fetch.bucket().checksum(), object, full)));
  }

  /**
   * Writes the body bytes that came with the first answer's head, on the event loop that received them (at most one
   * buffer, into the page cache), so the waiting clients' first bytes go out from there too.
   */
  private void writePrefix() throws IOException {
    if (!(first instanceof LoopFedRead read)) {
      return;
    }
    ByteBuffer buf = BUFFER.get();
    buf.clear().limit((int) Math.min(buf.capacity(), first.length()));
    int n = read.readQueued(buf);
    if (n <= 0) {
      return;
    }
    buf.flip();
    for (long pos = 0; buf.hasRemaining(); ) {
      pos += ch.write(buf, pos);
    }
    prefix = n;
    seq.completed(0, n);
  }

  private void transfer() throws Exception {
    BucketProps bucket = fetch.bucket();
    RemoteObject object = first.object();
    long size = object.size();
    if (prefix > 0 && size - prefix > IO_BUFFER) {
      fetch.awaitFirstBytes(FIRST_BYTES_WAIT_MS); // the loop sent the first bytes: let them reach the clients first
    }
    try {
      if (first.length() < size) {
        parallel(first, object, ch, seq, size);
      } else {
        copy(first, object, ch, seq, prefix, size - prefix);
      }
    } finally {
      first.close();
    }
    if (size == 0) {
      seq.completed(0, 0);
    }
    if (!seq.complete()) {
      throw new IOException("fetch of " + fetch.location().name() + " ended before all " + size
          + " bytes arrived");
    }
    if (checksumLookup != null) {
      checksumLookup.awaitUnchanged();
    }
    seq.awaitHashed();
    ContentVerifier verifier = seq.verifier();
    String checksum = verifier.verify();
    fetch.verifiedContent(size); // clients may have the last byte now; durability is the commit's business
    ch.force(true);
    ObjectMeta meta = new ObjectMeta(size, bucket.checksum(), checksum, System.currentTimeMillis(),
        etagOf(bucket, object), object.contentType(), object.userMeta(), Map.of(), List.of(),
        new RemoteVersion(object.etag(), object.version(), object.lastModified()));
    store.commitWorkFile(fetch.location(), fetch.workFile(), meta);
    if (!verifier.vouched()) {
      stats.committedUnverified(bucket.bucket().provider());
    }
    stats.fetched(bucket.bucket().provider(), size, System.nanoTime() - t0);
    fetch.succeed(meta);
  }

  /** Ends the fetch: committed ({@code failure} null) or failed, with nothing left behind. Once. */
  private void end(Throwable failure) {
    BucketProps bucket = fetch.bucket();
    String name = fetch.location().name();
    try {
      if (failure != null) {
        if (first != null) {
          closeQuietly(first);
        }
        discardWorkFile();
        Provider provider = bucket.bucket().provider();
        if (failure instanceof ChecksumMismatchException) {
          stats.checksumError(provider);
          log.error("node={} bucket={} object={}: remote content failed verification, not cached: {}", nodeId,
              bucket.bucket(), name, failure.getMessage());
        } else if (!(failure instanceof BackendException b && b.kind() == BackendException.Kind.NOT_FOUND)) {
          stats.failed(provider);
          log.warn("node={} bucket={} object={}: cold GET failed: {}", nodeId, bucket.bucket(), name,
              failure.toString());
        }
        fetch.fail(failure);
      }
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

  /** The length of a fetch's first read (see below); -1: the whole object. */
  static long firstLength(CacheConfig config) {
    return config.parallelStreams() < 2 ? -1 : Math.max(config.parallelThreshold(), config.parallelChunk());
  }

  /**
   * The first answer: a ranged read of the object's first {@code max(threshold, chunk)} bytes, which brings an
   * object up to the parallel threshold whole (one request, as a plain GET) and tells a larger one's size. Asking
   * for a range rather than the whole object means no bytes are sent only to be aborted once the parallel reads
   * take over (on a bandwidth-bound link those would be paid for twice). An empty object has no first range
   * (S3 answers 416); a server that ignores Range sends the whole object, which is as good.
   */
  private RemoteRead openFirst(String bucket, String name) throws IOException {
    long length = firstLength(config);
    if (length < 0) {
      return backend.read(bucket, name, 0, -1, null);
    }
    try {
      return backend.read(bucket, name, 0, length, null);
    } catch (BackendException e) {
      if (e.kind() != BackendException.Kind.INVALID_RANGE) {
        throw e;
      }
      return backend.read(bucket, name, 0, -1, null);
    }
  }

  /**
   * Copies the first answer's range on this thread while up to streams - 1 helpers read the rest as chunks, then
   * joins them. The front of the object, which clients stream first, comes in order from the first answer. The
   * helpers start once its first chunk is on disk: started with the first answer, their requests and bytes compete
   * with the response heads and first bytes on their way to the clients (on a busy node, by milliseconds).
   */
  private void parallel(RemoteRead first, RemoteObject object, FileChannel ch, Sequencer seq, long size)
      throws Exception {
    AtomicLong next = new AtomicLong(first.length());
    List<CompletableFuture<Void>> helpers = new ArrayList<>();
    Runnable startHelpers = () -> {
      for (int i = 1; i < config.parallelStreams(); i++) {
        helpers.add(rangePool.submit(() -> {
          chunks(object, ch, seq, next, size);
          return null;
        }));
      }
    };
    Exception failure = null;
    try {
      long helpersAt = Math.min(config.parallelChunk(), first.length()) - prefix; // counted from the prefix on
      if (helpersAt <= 0) {
        startHelpers.run();
      }
      copy(first, object, ch, seq, prefix, first.length() - prefix, helpersAt, helpersAt <= 0 ? null : startHelpers);
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
   * resuming a read that breaks off. Bytes are written and published a full buffer at a time: the remote's client
   * hands over a few KiB per read, and a write, a publish and a client wake-up per few KiB cost more CPU than the
   * bytes themselves. Only the object's first piece goes out as soon as it arrives, for the first byte's sake, and
   * the rest of a large object waits until the clients have it ({@link Fetch#awaitFirstBytes}).
   */
  private void copy(RemoteRead read, RemoteObject object, FileChannel ch, Sequencer seq, long offset, long length)
      throws IOException {
    copy(read, object, ch, seq, offset, length, Long.MAX_VALUE, null);
  }

  /** As the copy above; runs {@code then} once {@code thenAt} bytes are copied. */
  private void copy(RemoteRead read, RemoteObject object, FileChannel ch, Sequencer seq, long offset, long length,
      long thenAt, Runnable then) throws IOException {
    String bucket = fetch.bucket().bucket().name();
    String name = fetch.location().name();
    ByteBuffer buf = BUFFER.get();
    long done = 0;
    int resumes = 0;
    RemoteRead r = read;
    Runnable pending = then;
    try {
      while (done < length) {
        if (r == null) {
          r = backend.read(bucket, name, offset + done, length - done, object);
        }
        buf.clear().limit((int) Math.min(buf.capacity(), length - done));
        BackendException broke = null;
        try {
          fill(r, buf, offset + done == 0);
        } catch (BackendException e) {
          broke = e;
        }
        int n = buf.position();
        if (n > 0) { // what arrived before a break is good: keep it, resume after it
          buf.flip();
          long pos = offset + done;
          while (buf.hasRemaining()) {
            pos += ch.write(buf, pos);
          }
          seq.completed(offset + done, n);
          if (offset + done == 0 && length - n > IO_BUFFER) {
            fetch.awaitFirstBytes(FIRST_BYTES_WAIT_MS); // more than a buffer still to come: clients first
          }
          done += n;
          if (pending != null && done >= thenAt) {
            pending.run();
            pending = null;
          }
        }
        if (broke != null) {
          if ((broke.kind() != BackendException.Kind.TRUNCATED && broke.kind() != BackendException.Kind.UNAVAILABLE)
              || ++resumes > RESUMES) {
            throw broke;
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

  /** Reads until {@code buf} is full ({@code eager}: until anything arrived). */
  private void fill(RemoteRead r, ByteBuffer buf, boolean eager) throws IOException {
    while (buf.hasRemaining()) {
      int n = r.read(buf);
      if (n < 0) { // a backend reports a short body itself; this guards against one that does not
        throw new BackendException(BackendException.Kind.TRUNCATED, 0, "remote body of "
            + fetch.location().name() + " ended after " + r.offset() + " + " + buf.position() + " bytes");
      }
      if (eager && n > 0) {
        return;
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
