package io.granary.target.storage;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.target.meta.ObjectMeta;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Walks a bucket's object records (main copies and mirror copies) on given mountpaths, in batches: each batch's
 * scan is closed before the visitor sees its records, so a visitor may wait (for room in a queue) without holding a
 * metadata iterator open. The background walks of mirroring and erasure coding find their work so.
 */
public final class BucketRecords {
  private static final int BATCH = 256;

  private BucketRecords() {}

  /** Told each record; false stops the walk. */
  @FunctionalInterface
  public interface Visitor {
    boolean visit(Mountpath mp, String name, ObjectMeta meta) throws IOException, InterruptedException;
  }

  /**
   * Visits the records of {@code bucket} on each of {@code mountpaths}; {@code afterBatch} runs after each batch.
   *
   * @return false when the visitor stopped the walk
   */
  public static boolean walk(List<Mountpath> mountpaths, BucketProps bucket, Visitor visitor, Runnable afterBatch)
      throws IOException, InterruptedException {
    String prefix = ObjectStore.bucketPrefix(bucket);
    for (Mountpath mp : mountpaths) {
      String after = null;
      while (true) {
        List<String> keys = new ArrayList<>(BATCH);
        List<ObjectMeta> metas = new ArrayList<>(BATCH);
        mp.meta().scan(prefix, after, (key, meta) -> {
          keys.add(key);
          metas.add(meta);
          return keys.size() < BATCH;
        });
        if (keys.isEmpty()) {
          break;
        }
        for (int i = 0; i < keys.size(); i++) {
          if (!visitor.visit(mp, keys.get(i).substring(prefix.length()), metas.get(i))) {
            return false;
          }
        }
        after = keys.get(keys.size() - 1);
        afterBatch.run();
      }
    }
    return true;
  }
}
