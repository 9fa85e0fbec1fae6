package io.granary.target.multipart;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.target.storage.FileOps;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.ObjectLocation;
import io.granary.target.storage.ObjectStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves multipart uploads in progress to the HRW mountpath of their object, as the resilver moves objects, so that
 * completing one assembles it on the file system it will stay on and a detached mountpath takes no upload with it.
 *
 * <p>One upload moves under its lock (no part is added, and it is neither completed nor aborted meanwhile): its part
 * files are copied in the kernel and fsynced, its part records written, and only then its upload record, on the
 * destination; then the source's records and files go. Lookups try the HRW mountpath first, so they see the source
 * until the destination's upload record exists and the destination after. A crash in between leaves the upload on
 * both; the next move finds the destination's record and only removes the source's. Blocking: resilver threads.
 */
public final class UploadRelocation {
  private static final Logger log = LoggerFactory.getLogger(UploadRelocation.class);
  private static final ObjectMapper JSON = ClusterJson.mapper();

  private final MultipartStore multipart;
  private final ObjectStore store;

  public UploadRelocation(MultipartStore multipart) {
    this.multipart = multipart;
    this.store = multipart.store();
  }

  /**
   * Moves every upload of {@code buckets} that {@code from} holds and whose object's HRW mountpath is another one.
   *
   * @return how many moved
   */
  public int relocate(Mountpath from, Collection<BucketProps> buckets) throws IOException {
    int moved = 0;
    for (BucketProps b : buckets) {
      List<Upload> found = new ArrayList<>();
      MultipartStore.uploads(from).scan(ObjectStore.bucketPrefix(b), null, (k, v) -> {
        try {
          found.add(JSON.readValue(v, Upload.class));
        } catch (IOException e) {
          log.warn("node={} mountpath={} corrupt upload record {} left where it is", store.nodeId(), from, k);
        }
        return true;
      });
      for (Upload u : found) {
        ObjectLocation loc = store.locate(b, u.name());
        if (loc.mountpath() != from && move(from, loc, u)) {
          moved++;
        }
      }
    }
    return moved;
  }

  /** Uploads of {@code buckets} that {@code mp} holds. */
  public long remaining(Mountpath mp, Collection<BucketProps> buckets) throws IOException {
    long[] n = {0};
    for (BucketProps b : buckets) {
      MultipartStore.uploads(mp).scan(ObjectStore.bucketPrefix(b), null, (k, v) -> {
        n[0]++;
        return true;
      });
    }
    return n[0];
  }

  private boolean move(Mountpath from, ObjectLocation loc, Upload u) throws IOException {
    ReentrantLock lock = multipart.lock(u.uploadId());
    lock.lock();
    try {
      String key = MultipartStore.uploadKey(loc, u.uploadId());
      byte[] record = MultipartStore.uploads(from).get(key);
      if (record == null) {
        return false; // completed or aborted meanwhile
      }
      Mountpath to = loc.mountpath();
      if (MultipartStore.uploads(to).get(key) == null) { // else an interrupted move got that far: only clean up
        copyParts(from, to, u);
        MultipartStore.uploads(to).put(key, record);
      }
      MultipartStore.remove(from, loc.key(), u);
      log.info("node={} bucket={} object={} multipart upload {} moved from mountpath={} to mountpath={}",
          store.nodeId(), loc.bucket().bucket(), u.name(), u.uploadId(), from, to);
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Copies the upload's parts and their records; what an interrupted earlier copy left there is replaced. */
  private static void copyParts(Mountpath from, Mountpath to, Upload u) throws IOException {
    Path src = from.uploadsDir().resolve(u.uploadId());
    Path dst = to.uploadsDir().resolve(u.uploadId());
    FileOps.deleteTree(dst);
    for (Part p : MultipartStore.parts(to, u)) {
      MultipartStore.parts(to).delete(MultipartStore.partKey(u.uploadId(), p.number()));
    }
    FileOps.createDirectories(dst);
    List<Part> parts = MultipartStore.parts(from, u);
    for (Part p : parts) {
      FileOps.copyDurably(src.resolve(p.file()), dst.resolve(p.file()));
    }
    FileOps.syncDirectory(dst); // the part files' names are durable before any record names them
    for (Part p : parts) {
      MultipartStore.parts(to).put(MultipartStore.partKey(u.uploadId(), p.number()), JSON.writeValueAsBytes(p));
    }
  }
}
