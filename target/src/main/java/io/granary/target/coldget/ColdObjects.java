package io.granary.target.coldget;

import io.granary.backend.Backend;
import io.granary.backend.BackendException;
import io.granary.backend.PlainHttpGet;
import io.granary.backend.PlainHttpReads;
import io.granary.backend.PutAttributes;
import io.granary.backend.RemoteObject;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.client.UpstreamPool;
import io.granary.target.CacheConfig;
import io.granary.target.meta.ObjectMeta;
import io.granary.backend.RemoteBuckets;
import io.granary.target.meta.RemoteVersion;
import io.granary.target.storage.ObjectLocation;
import io.granary.target.storage.ObjectStore;
import io.netty.channel.EventLoop;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cold side of a target: objects of remote buckets fetched on demand, one fetch per object however many
 * clients (GETs, prefetch jobs) ask at once, and cached copies revalidated per the bucket's freshness settings.
 * AIStore answers concurrent cold GETs of one object with 409 after a wait; here they all share the one download.
 */
public final class ColdObjects implements CacheFiller {
  private static final Logger log = LoggerFactory.getLogger(ColdObjects.class);

  /** What a warm read should do after revalidation. */
  public enum Verdict {
    /** The cached copy is current: serve it. */
    CURRENT,
    /** The cached copy is stale or missing: fetch it. */
    FETCH,
    /** The remote has no such object (and the cached copy, if any, was dropped): 404. */
    GONE
  }

  private final String nodeId;
  private final ObjectStore store;
  private final RemoteBuckets remotes;
  private final CacheConfig config;
  private final BoundedExecutor coldPool;
  private final BoundedExecutor rangePool;
  private final UpstreamPool connections;
  private final BackendAddresses addresses;
  private final Semaphore loopFetches; // fetches whose first read was sent from an event loop and not ended yet
  private final ConcurrentHashMap<String, Fetch> inFlight = new ConcurrentHashMap<>();
  private final Revalidation revalidation = new Revalidation();
  private final ColdStats stats = new ColdStats();

  /**
   * @param connections the target's pool of connections per event loop, on which a cold GET sends its first remote
   *     read from its own loop when the backend allows ({@link PlainHttpReads})
   */
  public ColdObjects(String nodeId, ObjectStore store, RemoteBuckets remotes, CacheConfig config,
      UpstreamPool connections) {
    this.nodeId = nodeId;
    this.connections = Objects.requireNonNull(connections, "connections");
    this.store = store;
    this.remotes = remotes;
    this.config = config;
    // Each cold thread holds one backend connection; the queue bounds what waits for one.
    this.coldPool = new BoundedExecutor("cold-" + nodeId, config.coldThreads(), 4096);
    this.rangePool = new BoundedExecutor("cold-range-" + nodeId, config.coldThreads(), config.coldThreads() * 4);
    this.addresses = new BackendAddresses(coldPool);
    // As many as there are cold threads to take their bodies: each holds a connection until one does.
    this.loopFetches = new Semaphore(config.coldThreads());
  }

  public ColdStats stats() {
    return stats;
  }

  /** Fetches in flight now. Any thread; for the metrics scrape. */
  public int fetchesInFlight() {
    return inFlight.size();
  }

  /**
   * Requests (GETs, job fills) attached to the fetches in flight now: the first asker and those that joined.
   * Walks the in-flight map (at most the cold pool's queue); for the metrics scrape.
   */
  public long waiters() {
    long n = 0;
    for (Fetch f : inFlight.values()) {
      n += f.readers();
    }
    return n;
  }

  public ObjectStore store() {
    return store;
  }

  /** The pool for blocking remote calls (HEAD, ranged pass-through reads). */
  public BoundedExecutor pool() {
    return coldPool;
  }

  public Backend backend(BucketProps bucket) throws BackendException {
    return remotes.backend(bucket);
  }

  /**
   * The fetch of {@code name}: the one in flight, or a new one. The caller must {@link Fetch#release} it, and when
   * {@code streams} (a GET that will send the fetch's bytes as they land) call {@link Fetch#firstBytesSent} once.
   * Returns null when the object was committed by a fetch that just ended: read it from the store.
   *
   * @param seen the copy the caller found in the store and judged stale, or null when it found none: a copy other
   *     than this one means a fetch committed it between the caller's look and this join
   * @param loop the event loop of the GET that asks, or null (a job's fill): a new fetch started from a loop sends
   *     its first remote read from it
   */
  public Fetch join(BucketProps bucket, String name, ObjectMeta seen, boolean streams, EventLoop loop)
      throws IOException {
    ObjectLocation loc = store.locate(bucket, name);
    for (int attempt = 0; attempt < 3; attempt++) {
      Fetch f = inFlight.get(loc.key());
      if (f == null) {
        // A fetch commits before it leaves inFlight, so one that ended since the caller looked is in the store now:
        // without this look a GET racing the end of the fetch it could have joined would download the object again.
        ObjectMeta now = store.stat(bucket, name);
        if (now != null && !now.equals(seen)) {
          return null;
        }
        Fetch created = new Fetch(bucket, loc, store.newWorkFile(loc));
        if (inFlight.putIfAbsent(loc.key(), created) == null) {
          created.acquire(); // for the caller, before the fetch can end
          if (streams) {
            created.expectFirstBytes();
          }
          start(created, loop);
          return created;
        }
        continue;
      }
      if (f.finished().isCompletedExceptionally()) {
        // Failed and about to leave: a GET that arrives after the failure asks the remote again, not inherits it.
        leave(loc.key(), f);
        continue;
      }
      if (f.acquire()) {
        if (streams) {
          f.expectFirstBytes();
        }
        stats.joined(bucket.bucket().provider());
        return f;
      }
      leave(loc.key(), f); // ended and closed: what it committed is in the store, looked at on the next pass
    }
    return null;
  }

  private void start(Fetch f, EventLoop loop) throws BackendException {
    Backend backend;
    try {
      backend = remotes.backend(f.bucket());
    } catch (BackendException | RuntimeException e) {
      leave(f.location().key(), f);
      f.fail(e);
      f.release();
      throw e;
    }
    String key = f.location().key();
    AtomicBoolean loopPermit = new AtomicBoolean(); // held from before the loop's read is sent until the fetch ends
    FetchTask task = new FetchTask(nodeId, f, backend, store, config, rangePool, stats, () -> {
      leave(key, f);
      revalidation.checked(key, System.currentTimeMillis());
      if (loopPermit.getAndSet(false)) {
        loopFetches.release();
      }
    });
    if (loop != null && backend instanceof PlainHttpReads plain && loopFetches.tryAcquire()) {
      loopPermit.set(true);
      if (startOnLoop(f, task, plain, loop)) {
        return;
      }
      loopPermit.set(false);
      loopFetches.release();
    }
    submit(task);
  }

  /**
   * Sends the fetch's first read from {@code loop} and opens the fetch there when its head arrives, so the waiting
   * clients get their heads without a hand-over to a cold thread and back; the body is written on the cold pool.
   * Returns false when the read cannot go that way (an https endpoint, a name not resolved yet).
   */
  private boolean startOnLoop(Fetch f, FetchTask task, PlainHttpReads plain, EventLoop loop) {
    PlainHttpGet get;
    try {
      get = plain.prepare(f.bucket().bucket().name(), f.location().name(), 0, FetchTask.firstLength(config));
    } catch (BackendException | RuntimeException e) {
      return false; // the cold pool's attempt reports what is wrong
    }
    InetSocketAddress address = get == null ? null : addresses.now(get.host(), get.port());
    if (address == null) {
      return false;
    }
    LoopGet.send(connections, loop, address, plain, get).whenComplete((read, err) -> {
      if (err == null) {
        stats.loopRead(f.bucket().bucket().provider());
        if (task.open(read)) {
          submit(task);
        }
      } else if (err instanceof BackendException b && b.kind() != BackendException.Kind.UNAVAILABLE
          && b.kind() != BackendException.Kind.INVALID_RANGE) {
        task.abandon(b); // a final answer (404, 403, ...): asking again would get the same
      } else {
        submit(task); // no answer, a transient one, or an empty object's 416: the blocking way retries
      }
    });
    return true;
  }

  private void submit(FetchTask task) {
    coldPool.submit(() -> {
      task.run();
      return null;
    }).whenComplete((ok, err) -> {
      if (err != null) { // the pool refused it (queue full): the task never ran
        task.abandon(err);
      }
    });
  }

  /** Whether a warm read of {@code meta} must ask the remote first. Cheap; event loop. */
  public boolean mustRevalidate(BucketProps bucket, String name, ObjectMeta meta, boolean latest) {
    return revalidation.mustRevalidate(bucket, store.locate(bucket, name).key(), meta, latest,
        System.currentTimeMillis());
  }

  /**
   * Asks the remote whether the cached {@code meta} is current (on the cold pool). A remotely deleted object is
   * dropped locally when the bucket synchronizes deletions; otherwise its cached copy stays current.
   */
  public CompletableFuture<Verdict> revalidate(BucketProps bucket, String name, ObjectMeta meta) {
    return coldPool.submit(() -> revalidateNow(bucket, name, meta));
  }

  private Verdict revalidateNow(BucketProps bucket, String name, ObjectMeta meta) throws IOException {
    String key = store.locate(bucket, name).key();
    Backend backend = remotes.backend(bucket);
    long now = System.currentTimeMillis();
    try {
      RemoteObject remote = backend.head(bucket.bucket().name(), name);
      boolean same = Revalidation.sameVersion(meta, remote);
      stats.revalidated(bucket.bucket().provider(), !same);
      if (same) {
        revalidation.checked(key, now);
        return Verdict.CURRENT;
      }
      log.info("node={} bucket={} object={}: remote version changed, fetching it again", nodeId, bucket.bucket(),
          name);
      return Verdict.FETCH;
    } catch (BackendException e) {
      if (e.kind() != BackendException.Kind.NOT_FOUND) {
        throw e;
      }
      stats.revalidated(bucket.bucket().provider(), true);
      if (!bucket.freshness().sync()) {
        revalidation.checked(key, now);
        return Verdict.CURRENT;
      }
      revalidation.forget(key);
      store.delete(bucket, name);
      log.info("node={} bucket={} object={}: deleted remotely, dropped from the cache", nodeId, bucket.bucket(),
          name);
      return Verdict.GONE;
    }
  }

  /**
   * Completes (never exceptionally) once the fetch of {@code name} in flight now, if any, has ended. A read that asks
   * for the remote's latest version waits for it before it revalidates: joining a fetch that began before the
   * read was asked could serve a version older than the one the remote holds by then.
   */
  public CompletableFuture<Void> fetchInFlightEnded(BucketProps bucket, String name) {
    Fetch f = inFlight.get(store.locate(bucket, name).key());
    return f == null ? CompletableFuture.completedFuture(null) : f.gone();
  }

  /** Takes {@code f} out of the fetches in flight: requests that come later start their own. */
  private void leave(String key, Fetch f) {
    inFlight.remove(key, f);
    f.gone().complete(null);
  }

  /** The remote's attributes of {@code name} (cold HEAD), on the cold pool. */
  public CompletableFuture<RemoteObject> head(BucketProps bucket, String name) {
    return coldPool.submit(() -> remotes.backend(bucket).head(bucket.bucket().name(), name));
  }

  @Override
  public CompletableFuture<FillResult> fill(BucketProps bucket, String name, boolean latest) {
    if (latest) {
      return fetchInFlightEnded(bucket, name).thenCompose(v -> fillNow(bucket, name, true));
    }
    return fillNow(bucket, name, false);
  }

  private CompletableFuture<FillResult> fillNow(BucketProps bucket, String name, boolean latest) {
    CompletableFuture<CompletableFuture<FillResult>> decided = coldPool.submit(() -> {
      ObjectMeta meta = store.stat(bucket, name);
      if (meta != null && !mustRevalidate(bucket, name, meta, latest)) {
        return CompletableFuture.completedFuture(new FillResult(FillResult.Outcome.ALREADY_CACHED, 0));
      }
      if (meta != null) {
        Verdict v = revalidateNow(bucket, name, meta);
        if (v == Verdict.CURRENT) {
          return CompletableFuture.completedFuture(new FillResult(FillResult.Outcome.ALREADY_CACHED, 0));
        } else if (v == Verdict.GONE) {
          return CompletableFuture.completedFuture(new FillResult(FillResult.Outcome.NOT_FOUND, 0));
        }
      }
      return fetch(bucket, name, meta);
    });
    return decided.thenCompose(f -> f);
  }

  private CompletableFuture<FillResult> fetch(BucketProps bucket, String name, ObjectMeta seen) throws IOException {
    Fetch f = join(bucket, name, seen, false, null);
    if (f == null) {
      return CompletableFuture.completedFuture(new FillResult(FillResult.Outcome.ALREADY_CACHED, 0));
    }
    return f.finished().handle((meta, err) -> {
      f.release();
      if (err == null) {
        return new FillResult(FillResult.Outcome.FETCHED, meta.size());
      }
      Throwable cause = err instanceof CompletionException && err.getCause() != null
          ? err.getCause() : err;
      if (cause instanceof BackendException b && b.kind() == BackendException.Kind.NOT_FOUND) {
        return new FillResult(FillResult.Outcome.NOT_FOUND, 0);
      }
      throw new CompletionException(cause);
    });
  }

  /**
   * Writes {@code file} through to the remote store of {@code bucket} as {@code name} (write-through PUT and
   * completed multipart uploads); returns {@code meta} recording the version the remote created. A remote failure
   * is thrown as the error the client should see; the caller then commits nothing.
   */
  public ObjectMeta writeThrough(BucketProps bucket, String name, Path file, ObjectMeta meta) {
    try {
      RemoteObject remote = remotes.backend(bucket).put(bucket.bucket().name(), name, file,
          new PutAttributes(meta.size(), md5Of(meta), meta.contentType(), meta.userMeta()));
      return meta.withRemote(new RemoteVersion(remote.etag(), remote.version(),
          remote.lastModified()));
    } catch (IOException | RuntimeException e) {
      throw RemoteErrors.toApi(bucket, name, e);
    }
  }

  /** The content MD5 when the metadata knows it (an MD5 checksum, or a single-part S3 ETag), so the remote checks it. */
  private static String md5Of(ObjectMeta meta) {
    if (meta.checksumType() == ChecksumType.MD5) {
      return meta.checksum();
    }
    String etag = meta.etag();
    return etag != null && etag.length() == 32 && etag.chars().allMatch(c -> Character.digit(c, 16) >= 0) ? etag
        : null;
  }

  /** Stops the pools; fetches in flight are abandoned (their work files are removed at the next start). */
  public void close() {
    coldPool.close();
    rangePool.close();
  }
}
