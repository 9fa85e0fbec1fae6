package io.granary.common.listing;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * A page of a listing, sorted by {@link io.granary.clustermap.bucket.NameOrder}.
 *
 * @param entries the objects of this page
 * @param prefixes with a delimiter: the common prefixes of this page (names that stand for every object under
 *     them); objects and prefixes together are at most the page's limit
 * @param token pass back as {@code token} to get the next page; absent on the last page
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record ListPage(List<ObjectEntry> entries, List<String> prefixes, String token) {
  public ListPage {
    entries = entries == null ? List.of() : List.copyOf(entries);
    prefixes = prefixes == null ? List.of() : List.copyOf(prefixes);
  }

  public ListPage(List<ObjectEntry> entries, String token) {
    this(entries, List.of(), token);
  }
}
