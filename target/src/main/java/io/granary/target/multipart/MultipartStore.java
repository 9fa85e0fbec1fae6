package io.granary.target.multipart;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.acl.CannedAcl;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.NameOrder;
import io.granary.common.s3.CompletedPart;
import io.granary.common.membership.UploadHolder;
import io.granary.common.s3.S3ApiException;
import io.granary.target.meta.MetaStore;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.FileOps;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.ObjectLocation;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.PutOperation;
import io.granary.target.storage.WriteCondition;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Multipart uploads of one target. An upload lives on the HRW mountpath of its key, so completing it assembles
 * the object on the same filesystem it will stay on:
 *
 * <pre>
 * uploads column:  BUCKET_PREFIX + KEY + NUL + UPLOAD_ID  ->  Upload (JSON)
 * parts column:    UPLOAD_ID + "/" + 00042                ->  Part (JSON)
 * MOUNTPATH/uploads/UPLOAD_ID/42.SEQ                      the part's bytes
 * </pre>
 *
 * A part is stored like an object body (streamed, hashed, fsynced), then renamed into the upload and recorded; a
 * record always names the file it describes. Completion checks the parts as S3 does, then {@link UploadAssembler}
 * copies them into one work file and commits it through the object store's crash-safe path, or, when the key
 * changed owner while the upload was in progress, sends it to its owner ({@link OwnerDelivery}). Upload ids name
 * this target ({@link UploadHolder}): requests on an upload come here whatever the map does meanwhile. Uploads
 * older than a TTL are aborted by {@link #sweep}, so abandoned uploads do not hold disk forever. Blocking: call
 * from the disk pool.
 */
public final class MultipartStore {
  private static final Logger log = LoggerFactory.getLogger(MultipartStore.class);
  private static final ObjectMapper JSON = ClusterJson.mapper();
  private static final SecureRandom RANDOM = new SecureRandom();
  /** S3's minimum size of every part but the last. */
  public static final long MIN_PART_SIZE = 5L << 20;
  public static final int MAX_PARTS = 10_000;

  private final String nodeId;
  private final ObjectStore store;
  private final Clock clock;
  private final ReentrantLock[] locks = new ReentrantLock[256];
  private final CompletedUploads completed;
  private final UploadAssembler assembler;
  private volatile RemoteWriter remoteWriter;
  private volatile OwnerDelivery owners = (bucket, name) -> null; // until set: every key is owned here

  /** Writes an assembled object of a remote bucket through to its store before it is committed. */
  @FunctionalInterface
  public interface RemoteWriter {
    /**
     * Uploads {@code file} as {@code name}; returns the metadata to commit (recording the remote version). Throwing
     * commits nothing.
     */
    ObjectMeta upload(BucketProps bucket, String name, Path file, ObjectMeta meta) throws IOException;
  }

  /** Completed uploads of remote buckets go through {@code writer} (set once, when the cold side exists). */
  public void writeThroughWith(RemoteWriter writer) {
    this.remoteWriter = writer;
  }

  /** Completed uploads of keys another target owns go there through {@code delivery} (set once, at start-up). */
  public void deliverThrough(OwnerDelivery delivery) {
    this.owners = delivery;
  }

  public MultipartStore(String nodeId, ObjectStore store, Clock clock) {
    this.nodeId = nodeId;
    this.store = store;
    this.clock = clock;
    this.completed = new CompletedUploads(store);
    this.assembler = new UploadAssembler(store, clock);
    for (int i = 0; i < locks.length; i++) {
      locks[i] = new ReentrantLock();
    }
  }

  /** Starts an upload of {@code name}, to complete as a private object. */
  public Upload create(BucketProps bucket, String name, String contentType, Map<String, String> userMeta,
      Map<String, String> headers) throws IOException {
    return create(bucket, name, contentType, userMeta, headers, CannedAcl.PRIVATE);
  }

  /** Starts an upload of {@code name}, to complete as an object with canned ACL {@code acl}. */
  public Upload create(BucketProps bucket, String name, String contentType, Map<String, String> userMeta,
      Map<String, String> headers, CannedAcl acl) throws IOException {
    return create(bucket, name, contentType, userMeta, headers, acl, null);
  }

  /** Starts an upload whose parts and completed object keep a flexible {@code checksum} (null: none). */
  public Upload create(BucketProps bucket, String name, String contentType, Map<String, String> userMeta,
      Map<String, String> headers, CannedAcl acl, UploadChecksum checksum) throws IOException {
    byte[] id = new byte[16];
    RANDOM.nextBytes(id);
    Upload u = new Upload(UploadHolder.newId(nodeId, id), name, clock.millis(), contentType, userMeta, headers,
        acl, checksum);
    ObjectLocation loc = store.locate(bucket, name);
    uploads(loc.mountpath()).put(uploadKey(loc, u.uploadId()), JSON.writeValueAsBytes(u));
    return u;
  }

  /** The upload, or 404 NoSuchUpload. */
  public Upload require(BucketProps bucket, String name, String uploadId) throws IOException {
    Held h = held(bucket, name, uploadId);
    if (h == null) {
      throw noSuchUpload(uploadId);
    }
    return h.upload();
  }

  /** An upload and the mountpath holding it. */
  record Held(Upload upload, Mountpath mountpath) {
  }

  /**
   * The upload and the mountpath holding it: the HRW mountpath of its object, else another readable one (it began
   * before the mountpaths changed and has not moved yet); null when none holds it.
   */
  Held held(BucketProps bucket, String name, String uploadId) throws IOException {
    if (uploadId == null || uploadId.isEmpty()) {
      return null;
    }
    ObjectLocation loc = store.locate(bucket, name);
    String key = uploadKey(loc, uploadId);
    byte[] v = uploads(loc.mountpath()).get(key);
    Mountpath mp = loc.mountpath();
    if (v == null) {
      for (Mountpath other : store.mountpaths()) {
        if (other != loc.mountpath() && (v = uploads(other).get(key)) != null) {
          mp = other;
          break;
        }
      }
    }
    return v == null ? null : new Held(JSON.readValue(v, Upload.class), mp);
  }

  /** The mountpath holding {@code upload}, or 404 NoSuchUpload (aborted or completed meanwhile). */
  private Mountpath holder(BucketProps bucket, Upload upload) throws IOException {
    Held h = held(bucket, upload.name(), upload.uploadId());
    if (h == null) {
      throw noSuchUpload(upload.uploadId());
    }
    return h.mountpath();
  }

  /** Checks a part number: 1 to 10000 (400 InvalidArgument otherwise). */
  public static int partNumber(String value) {
    int n;
    try {
      n = Integer.parseInt(value);
    } catch (NumberFormatException e) {
      n = -1;
    }
    if (n < 1 || n > MAX_PARTS) {
      throw S3ApiException.invalidArgument("Part number must be an integer between 1 and " + MAX_PARTS + ", inclusive",
          "partNumber", value);
    }
    return n;
  }

  /** Records a staged part body (from {@link PutOperation#finishStaged}) as part {@code number} of the upload. */
  public Part addPart(BucketProps bucket, Upload upload, int number, PutOperation.Staged staged, String md5)
      throws IOException {
    UploadChecksum c = upload.checksum();
    return addPart(bucket, upload, number, staged, md5, c == null ? null : staged.sums().get(c.algorithm()));
  }

  /** As above, keeping the part's flexible {@code checksum} (hex, of its upload's algorithm; null: none). */
  public Part addPart(BucketProps bucket, Upload upload, int number, PutOperation.Staged staged, String md5,
      String checksum) throws IOException {
    ReentrantLock lock = lock(upload.uploadId());
    lock.lock();
    try {
      Mountpath mp = holder(bucket, upload); // not aborted or completed meanwhile
      Path dir = mp.uploadsDir().resolve(upload.uploadId());
      FileOps.createDirectories(dir);
      String file = number + "." + Long.toHexString(RANDOM.nextLong() & Long.MAX_VALUE);
      FileOps.moveReplacing(staged.workFile(), dir.resolve(file));
      FileOps.syncDirectory(dir); // the part is acknowledged next: its name must survive a power loss
      MetaStore.Column parts = parts(mp);
      String key = partKey(upload.uploadId(), number);
      byte[] old = parts.get(key);
      Part part = new Part(number, staged.size(), md5, clock.millis(), file, checksum);
      parts.put(key, JSON.writeValueAsBytes(part));
      if (old != null) {
        Files.deleteIfExists(dir.resolve(JSON.readValue(old, Part.class).file()));
      }
      return part;
    } finally {
      lock.unlock();
    }
  }

  /** The upload's parts, by number. */
  public List<Part> parts(BucketProps bucket, Upload upload) throws IOException {
    return parts(holder(bucket, upload), upload);
  }

  /** The parts of an upload {@code mp} holds, by number. */
  static List<Part> parts(Mountpath mp, Upload upload) throws IOException {
    List<Part> out = new ArrayList<>();
    parts(mp).scan(upload.uploadId() + "/", null, (k, v) -> {
      try {
        out.add(JSON.readValue(v, Part.class));
      } catch (IOException e) {
        throw new IllegalStateException("corrupt part record " + k, e);
      }
      return true;
    });
    return out;
  }

  /**
   * Completes an upload: checks the requested parts (ascending: InvalidPartOrder; present with the given ETag:
   * InvalidPart; at least 5 MiB except the last: EntityTooSmall), assembles them, commits the object with ETag
   * {@code md5(part md5s)-N}, remembers the completion and removes the upload. An object of a remote bucket is
   * uploaded to its store first (see {@link #writeThroughWith}); if that fails, nothing is committed and the upload
   * stays, so it can be retried.
   *
   * <p>Idempotent within the retry window ({@link CompletedUploads}): a completion retried with the same part list
   * answers what the first answered and changes nothing, even when the object was overwritten or deleted since; one
   * with another part list is 400 InvalidPart.
   */
  public CompletedUpload complete(BucketProps bucket, String name, String uploadId, List<CompletedPart> requested)
      throws IOException {
    return complete(bucket, name, uploadId, requested, WriteCondition.NONE);
  }

  /**
   * {@link #complete}, committing only when {@code condition} holds for the object at the commit (checked also
   * before the parts are assembled). When it does not, the condition's answer is thrown (412, or 404 for If-Match on
   * a missing object), nothing is committed, and the upload stays as it was: it can be completed without the
   * condition or aborted. A retry of a completion that succeeded is answered as the first was, without the
   * condition: the first request's condition held when it was decided.
   */
  public CompletedUpload complete(BucketProps bucket, String name, String uploadId, List<CompletedPart> requested,
      WriteCondition condition) throws IOException {
    ReentrantLock lock = lock(uploadId);
    lock.lock();
    try {
      Held held = held(bucket, name, uploadId);
      CompletedUpload done = uploadId == null || uploadId.isEmpty() ? null : completed.find(bucket, name, uploadId);
      if (done != null) {
        CompletedUploads.requireSameParts(done, requested);
        if (held != null) { // a crash after the completion was recorded left the upload: finish removing it
          remove(bucket, held.upload());
        }
        log.info("node={} bucket={} object={}: multipart upload {} completed again (a retry), answered ETag {}",
            nodeId, bucket.bucket(), name, uploadId, done.etag());
        return done;
      }
      if (held == null) {
        throw noSuchUpload(uploadId);
      }
      Upload upload = held.upload();
      if (requested.isEmpty()) {
        throw S3ApiException.malformedXml("CompleteMultipartUpload must name at least one part");
      }
      Map<Integer, Part> stored = new TreeMap<>();
      for (Part p : parts(bucket, upload)) {
        stored.put(p.number(), p);
      }
      int previous = 0;
      for (CompletedPart c : requested) { // the order first, as S3 checks it before the parts
        if (c.partNumber() <= previous) {
          throw S3ApiException.invalidPartOrder("parts must be listed in ascending order of part number; "
              + c.partNumber() + " follows " + previous);
        }
        previous = c.partNumber();
      }
      List<Part> chosen = new ArrayList<>(requested.size());
      for (int i = 0; i < requested.size(); i++) {
        CompletedPart c = requested.get(i);
        Part p = stored.get(c.partNumber());
        if (p == null || !p.md5().equalsIgnoreCase(c.normalizedEtag())) {
          throw new S3ApiException(HttpResponseStatus.BAD_REQUEST, "InvalidPart", "part " + c.partNumber()
              + " with ETag " + c.etag() + " was not uploaded to this upload, or has another ETag");
        }
        if (i < requested.size() - 1 && p.size() < MIN_PART_SIZE) {
          throw new S3ApiException(HttpResponseStatus.BAD_REQUEST, "EntityTooSmall", "part " + p.number() + " is "
              + p.size() + " bytes; every part but the last must be at least " + MIN_PART_SIZE + " bytes");
        }
        chosen.add(p);
      }
      // Decided once: the key may have changed owner since the upload began (a target joined, or this one leaves).
      OwnerDelivery.Owner away = owners.awayFrom(bucket, name);
      if (!condition.isNone()) { // early: assembling gigabytes to refuse them is a waste
        if (away == null) {
          condition.check(store.stat(bucket, name), bucket.bucket().toString(), name);
        } else {
          away.check(condition);
        }
      }
      Path partsDir = held.mountpath().uploadsDir().resolve(uploadId);
      ObjectMeta meta = assembler.assemble(bucket, upload, partsDir, chosen, condition, away, remoteWriter);
      done = new CompletedUpload(uploadId, name, meta.effectiveEtag(), meta.size(), meta.mtime(), clock.millis(),
          CompletedUploads.partsHash(requested),
          meta.flexible() == null ? null : meta.flexible().withParts(List.of()), // a retry answers the object's only
          chosen.size());
      // Before the upload goes: a crash in between leaves both, and a retry is answered from the record.
      completed.put(bucket, done);
      remove(bucket, upload);
      log.info("node={} bucket={} object={}: completed multipart upload {} of {} parts, {} bytes{}", nodeId,
          bucket.bucket(), name, uploadId, chosen.size(), meta.size(),
          away == null ? "" : ", committed on its owner " + away.node());
      return done;
    } finally {
      lock.unlock();
    }
  }

  /** Whether any multipart upload is in progress here (a target leaving placement keeps them until they end). */
  public boolean holdsUploads() throws IOException {
    for (Mountpath mp : store.mountpaths()) {
      boolean[] any = {false};
      uploads(mp).scan("", null, (k, v) -> {
        any[0] = true;
        return false;
      });
      if (any[0]) {
        return true;
      }
    }
    return false;
  }

  /** Aborts an upload: its parts and record go. 404 NoSuchUpload when it does not exist. */
  public void abort(BucketProps bucket, String name, String uploadId) throws IOException {
    ReentrantLock lock = lock(uploadId);
    lock.lock();
    try {
      remove(bucket, require(bucket, name, uploadId));
    } finally {
      lock.unlock();
    }
  }

  private void remove(BucketProps bucket, Upload upload) throws IOException {
    remove(holder(bucket, upload), store.locate(bucket, upload.name()).key(), upload);
  }

  /** Drops an upload {@code mp} holds: its part records, its record, its part files. */
  static void remove(Mountpath mp, String objectKey, Upload upload) throws IOException {
    MetaStore.Column parts = parts(mp);
    for (Part p : parts(mp, upload)) {
      parts.delete(partKey(upload.uploadId(), p.number()));
    }
    uploads(mp).delete(objectKey + "\u0000" + upload.uploadId());
    FileOps.deleteTree(mp.uploadsDir().resolve(upload.uploadId()));
  }

  /**
   * Uploads of a bucket in key order (then upload id), those with keys starting with {@code prefix} and after
   * ({@code keyMarker}, {@code uploadIdMarker}), at most {@code limit}, merged across mountpaths.
   */
  public List<Upload> list(BucketProps bucket, String prefix, String keyMarker, String uploadIdMarker, int limit)
      throws IOException {
    String bp = ObjectStore.bucketPrefix(bucket);
    String after = keyMarker == null || keyMarker.isEmpty() ? null
        : bp + keyMarker + (uploadIdMarker == null || uploadIdMarker.isEmpty() ? "\u0000\uffff" : "\u0000" + uploadIdMarker);
    Map<String, Upload> all = new java.util.HashMap<>(); // by id: one moving between mountpaths is listed once
    for (Mountpath mp : store.mountpaths()) {
      int[] n = {0};
      uploads(mp).scan(bp + prefix, after, (k, v) -> {
        try {
          Upload u = JSON.readValue(v, Upload.class);
          all.put(u.uploadId(), u);
        } catch (IOException e) {
          throw new IllegalStateException("corrupt upload record " + k, e);
        }
        return ++n[0] < limit;
      });
    }
    List<Upload> sorted = new ArrayList<>(all.values());
    sorted.sort((a, b) -> {
      int c = NameOrder.INSTANCE.compare(a.name(), b.name());
      return c != 0 ? c : a.uploadId().compareTo(b.uploadId());
    });
    return sorted.size() <= limit ? sorted : new ArrayList<>(sorted.subList(0, limit));
  }

  /**
   * Aborts every upload of the given buckets started more than {@code ttl} ago, and forgets their completions older
   * than the retry window ({@link CompletedUploads#window}); returns how many uploads it aborted.
   */
  public int sweep(List<BucketProps> buckets, Duration ttl) throws IOException {
    long cutoff = clock.millis() - ttl.toMillis();
    long forgetBefore = clock.millis() - CompletedUploads.window(ttl).toMillis();
    int aborted = 0;
    for (BucketProps b : buckets) {
      int forgotten = completed.expire(b, forgetBefore);
      if (forgotten > 0) {
        log.info("node={} bucket={} forgot {} completed multipart uploads past their retry window", nodeId,
            b.bucket(), forgotten);
      }
      for (Upload u : list(b, "", null, null, Integer.MAX_VALUE)) {
        if (u.initiated() < cutoff) {
          try {
            abort(b, u.name(), u.uploadId());
            aborted++;
            log.info("node={} bucket={} object={}: aborted multipart upload {} abandoned since {}", nodeId,
                b.bucket(), u.name(), u.uploadId(), Instant.ofEpochMilli(u.initiated()));
          } catch (S3ApiException gone) {
            // completed or aborted meanwhile
          }
        }
      }
    }
    return aborted;
  }

  static String uploadKey(ObjectLocation loc, String uploadId) {
    return loc.key() + "\u0000" + uploadId;
  }

  static String partKey(String uploadId, int number) {
    return uploadId + "/" + String.format("%05d", number);
  }

  static MetaStore.Column uploads(Mountpath mp) {
    return mp.meta().column("uploads");
  }

  static MetaStore.Column parts(Mountpath mp) {
    return mp.meta().column("parts");
  }

  ObjectStore store() {
    return store;
  }

  ReentrantLock lock(String uploadId) {
    return locks[(uploadId.hashCode() & 0x7fffffff) % locks.length];
  }

  private static S3ApiException noSuchUpload(String uploadId) {
    return new S3ApiException(HttpResponseStatus.NOT_FOUND, "NoSuchUpload",
        "the upload '" + uploadId + "' does not exist: it was never started, or was completed or aborted");
  }
}
