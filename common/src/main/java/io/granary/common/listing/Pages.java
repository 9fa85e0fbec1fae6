package io.granary.common.listing;

import io.granary.clustermap.bucket.NameOrder;
import io.granary.common.api.ListParams;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Merging and cutting listing pages: objects and common prefixes interleave in name order and share one limit. */
public final class Pages {
  private Pages() {}

  /**
   * Merges pages (from mountpaths or targets) into one of at most {@code limit} items, each name once (the newest
   * copy when sources disagree). The token
   * resumes after the last item, which is right because every item a source held back sorts after its own last
   * item, and that sorts at or after the cut. {@code more} says some source has more beyond its page.
   */
  public static ListPage merge(Collection<ListPage> pages, int limit, boolean more) {
    TreeMap<String, ObjectEntry> items = new TreeMap<>(NameOrder.INSTANCE); // null value: a common prefix
    for (ListPage p : pages) {
      for (ObjectEntry e : p.entries()) {
        // A name on two sources (a copy moved by a rebalance, its source not yet removed): the newer copy wins.
        items.merge(e.name(), e, (a, b) -> a == null ? b : b.mtime() > a.mtime() ? b : a);
      }
      for (String prefix : p.prefixes()) {
        items.putIfAbsent(prefix, null);
      }
      more |= p.token() != null;
    }
    List<ObjectEntry> entries = new ArrayList<>();
    List<String> prefixes = new ArrayList<>();
    String last = null;
    int n = 0;
    for (Map.Entry<String, ObjectEntry> e : items.entrySet()) {
      if (n == limit) {
        more = true;
        break;
      }
      n++;
      last = e.getKey();
      if (e.getValue() == null) {
        prefixes.add(e.getKey());
      } else {
        entries.add(e.getValue());
      }
    }
    return new ListPage(entries, prefixes, more && last != null ? ListParams.token(last) : null);
  }

  /** A page of at most {@code limit} items out of one that may hold {@code limit + 1} (the extra means more). */
  public static ListPage cut(ListPage page, int limit) {
    return merge(List.of(page), limit, false);
  }
}
