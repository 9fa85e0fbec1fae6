package io.granary.common.listing;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * A page of a listing, sorted by {@link io.granary.clustermap.bucket.NameOrder}.
 *
 * @param entries the objects of this page
 * @param token pass back as {@code token} to get the next page; absent on the last page
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ListPage(List<ObjectEntry> entries, String token) {
  public ListPage {
    entries = entries == null ? List.of() : List.copyOf(entries);
  }
}
