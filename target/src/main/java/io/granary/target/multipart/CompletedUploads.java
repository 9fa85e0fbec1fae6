package io.granary.target.multipart;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.s3.CompletedPart;
import io.granary.common.s3.S3ApiException;
import io.granary.target.meta.MetaStore;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.ObjectLocation;
import io.granary.target.storage.ObjectStore;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * Completed multipart uploads, remembered for a retry window: a CompleteMultipartUpload whose answer was lost is
 * retried by SDKs, and S3 answers the retry 200 with the same ETag. The record is written (synced) before the
 * upload's own record goes, on the HRW mountpath of the object, so it survives a restart:
 *
 * <pre>
 * completed column:  BUCKET_PREFIX + KEY + NUL + UPLOAD_ID  ->  CompletedUpload (JSON)
 * </pre>
 *
 * Records older than the window ({@link #window}: the multipart TTL, at most {@link #RETRY_WINDOW}) are dropped by
 * the upload sweep. Blocking: call from the disk pool, under the upload's lock.
 */
final class CompletedUploads {
  private static final ObjectMapper JSON = ClusterJson.mapper();
  /** How long a completion is remembered at most; SDK retries come within minutes. */
  static final Duration RETRY_WINDOW = Duration.ofHours(24);

  private final ObjectStore store;

  CompletedUploads(ObjectStore store) {
    this.store = store;
  }

  /** How long completions are kept when abandoned uploads are kept {@code ttl}. */
  static Duration window(Duration ttl) {
    return ttl.compareTo(RETRY_WINDOW) < 0 ? ttl : RETRY_WINDOW;
  }

  /** Records a completion (synced) on the HRW mountpath of its object. */
  void put(BucketProps bucket, CompletedUpload done) throws IOException {
    ObjectLocation loc = store.locate(bucket, done.name());
    column(loc.mountpath()).put(MultipartStore.uploadKey(loc, done.uploadId()), JSON.writeValueAsBytes(done));
  }

  /** The completion of {@code uploadId} still remembered, or null: the HRW mountpath first, then the others. */
  CompletedUpload find(BucketProps bucket, String name, String uploadId) throws IOException {
    ObjectLocation loc = store.locate(bucket, name);
    String key = MultipartStore.uploadKey(loc, uploadId);
    byte[] v = column(loc.mountpath()).get(key);
    if (v == null) { // recorded before the mountpaths changed
      for (Mountpath other : store.mountpaths()) {
        if (other != loc.mountpath() && (v = column(other).get(key)) != null) {
          break;
        }
      }
    }
    return v == null ? null : JSON.readValue(v, CompletedUpload.class);
  }

  /**
   * Drops the completions of {@code bucket} made at or before {@code cutoff} (epoch ms), on every mountpath.
   *
   * @return how many were dropped
   */
  int expire(BucketProps bucket, long cutoff) throws IOException {
    int dropped = 0;
    for (Mountpath mp : store.mountpaths()) {
      MetaStore.Column c = column(mp);
      List<String> old = new ArrayList<>();
      c.scan(ObjectStore.bucketPrefix(bucket), null, (k, v) -> {
        try {
          if (JSON.readValue(v, CompletedUpload.class).completed() <= cutoff) {
            old.add(k);
          }
        } catch (IOException e) {
          old.add(k); // unreadable: it can answer no retry
        }
        return true;
      });
      for (String k : old) {
        c.delete(k);
      }
      dropped += old.size();
    }
    return dropped;
  }

  /**
   * A retry of {@code done} must name the same parts with the same ETags (quoted or not); another list is 400
   * InvalidPart, as for parts that are not in the upload (they are not: the upload is gone).
   */
  static void requireSameParts(CompletedUpload done, List<CompletedPart> requested) {
    if (!done.partsHash().equals(partsHash(requested))) {
      throw new S3ApiException(HttpResponseStatus.BAD_REQUEST, "InvalidPart", "upload " + done.uploadId()
          + " was completed with another part list; one or more of the specified parts could not be found");
    }
  }

  /** SHA-256 of the part list as {@code N:etag} lines, ETags unquoted and lowercased. */
  static String partsHash(List<CompletedPart> parts) {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    for (CompletedPart p : parts) {
      sha.update((p.partNumber() + ":" + p.normalizedEtag().toLowerCase(Locale.ROOT) + "\n")
          .getBytes(StandardCharsets.UTF_8));
    }
    return HexFormat.of().formatHex(sha.digest());
  }

  private static MetaStore.Column column(Mountpath mp) {
    return mp.meta().column("completed");
  }
}
