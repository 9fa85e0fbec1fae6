package io.granary.target.storage;

import io.granary.clustermap.bucket.NameOrder;
import io.granary.common.listing.Checksum;
import io.granary.common.listing.ListPage;
import io.granary.common.listing.ObjectEntry;
import io.granary.target.meta.MetaStore;
import io.granary.target.meta.ObjectMeta;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * One page of a bucket listing merged from the pages of several mountpaths, in name order, each name once. While
 * objects move between mountpaths (resilver) a name may be on two of them for a moment; the newer copy (by mtime) is
 * the one listed, as a read would find it.
 *
 * <p>Each mountpath lists its first {@code limit} items; the first {@code limit} distinct names of their union are
 * the page: a name among the first {@code limit} overall is among the first {@code limit} of every mountpath holding
 * it, since fewer names precede it there.
 */
final class MergedListing {
  private static final ObjectEntry PREFIX = new ObjectEntry("", 0, null, null, 0); // marks a common prefix

  private final String bucketPrefix;
  private final TreeMap<String, ObjectEntry> items = new TreeMap<>(NameOrder.INSTANCE);

  /** @param bucketPrefix the metadata key prefix of the bucket, cut from every key */
  MergedListing(String bucketPrefix) {
    this.bucketPrefix = bucketPrefix;
  }

  /** Adds one mountpath's page. */
  void add(List<MetaStore.ListedKey> keys) {
    for (MetaStore.ListedKey k : keys) {
      String name = k.key().substring(bucketPrefix.length());
      ObjectMeta m = k.meta();
      ObjectEntry e = m == null ? PREFIX : new ObjectEntry(name, m.size(), new Checksum(m.checksumType(),
          m.checksum()), m.effectiveEtag(), m.mtime());
      items.merge(name, e, (a, b) -> a == PREFIX || b.mtime() <= a.mtime() ? a : b);
    }
  }

  /** The first {@code limit} items. */
  ListPage page(int limit) {
    List<ObjectEntry> entries = new ArrayList<>();
    List<String> prefixes = new ArrayList<>();
    int n = 0;
    for (var e : items.entrySet()) {
      if (n++ == limit) {
        break;
      }
      if (e.getValue() == PREFIX) {
        prefixes.add(e.getKey());
      } else {
        entries.add(e.getValue());
      }
    }
    return new ListPage(entries, prefixes, null);
  }
}
