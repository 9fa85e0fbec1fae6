package io.granary.proxy.listing;

import io.granary.backend.RemotePage;
import io.granary.backend.RemoteBuckets;
import io.granary.backend.RemoteObject;
import io.granary.clustermap.Node;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.NameOrder;
import io.granary.common.api.ListParams;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.listing.ListPage;
import io.granary.common.listing.ObjectEntry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One page of a remote bucket's listing as the remote store has it, each object marked cached or not. The page
 * is the remote's (one remote list call); the cached marks come from the cluster's own listing of the same name
 * range. Pages continue after the last name (or after everything under the last common prefix), so the
 * continuation works like a local listing's.
 */
final class RemoteListing {
  /** Sorts after every name that starts with a given prefix (U+10FFFF is the largest code point). */
  private static final String AFTER_ALL = new String(Character.toChars(0x10FFFF));

  private final ListingMerger local;
  private final RemoteBuckets remotes;
  private final BoundedExecutor pool;

  RemoteListing(ListingMerger local, RemoteBuckets remotes, BoundedExecutor pool) {
    this.local = local;
    this.remotes = remotes;
    this.pool = pool;
  }

  CompletableFuture<ListPage> list(List<Node> targets, BucketProps bucket, ListParams p) {
    int limit = Math.min(p.limit(), 1000); // the most S3 and GCS return per call
    return pool.submit(() -> remotes.backend(bucket).list(bucket.bucket().name(), p.prefix(),
        p.delimiter().isEmpty() ? null : p.delimiter(), p.startAfter(), null, limit))
        .thenCompose(page -> {
          if (page.objects().isEmpty()) {
            return CompletableFuture.completedFuture(toListPage(page, Map.of()));
          }
          // The cached copies in the same name range: at most the remote's page, plus copies of objects deleted
          // remotely; a full local page that ends early only loses "cached" marks, never entries.
          ListParams range = new ListParams(p.prefix(), p.startAfter(), Math.min(ListParams.MAX_LIMIT, 2 * limit + 16));
          return local.list(targets, bucket, range).thenApply(cached -> {
            Map<String, ObjectEntry> byName = new HashMap<>();
            for (ObjectEntry e : cached.entries()) {
              byName.put(e.name(), e);
            }
            return toListPage(page, byName);
          });
        });
  }

  private static ListPage toListPage(RemotePage page, Map<String, ObjectEntry> cached) {
    List<ObjectEntry> entries = new ArrayList<>(page.objects().size());
    for (RemoteObject o : page.objects()) {
      ObjectEntry c = cached.get(o.key());
      entries.add(new ObjectEntry(o.key(), o.size(), c == null ? null : c.checksum(),
          o.etag() != null ? o.etag() : o.md5(), o.lastModified(), c != null));
    }
    String token = null;
    if (page.nextToken() != null) {
      String last = entries.isEmpty() ? null : entries.get(entries.size() - 1).name();
      if (!page.commonPrefixes().isEmpty()) {
        String lastPrefix = page.commonPrefixes().get(page.commonPrefixes().size() - 1) + AFTER_ALL;
        if (last == null || NameOrder.INSTANCE.compare(lastPrefix, last) > 0) {
          last = lastPrefix;
        }
      }
      token = last == null ? null : ListParams.token(last);
    }
    return new ListPage(entries, page.commonPrefixes(), token);
  }
}
