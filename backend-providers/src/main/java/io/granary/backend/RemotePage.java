package io.granary.backend;

import java.util.List;

/**
 * One page of a remote listing.
 *
 * @param objects the objects, in listing order
 * @param commonPrefixes prefixes rolled up by the delimiter, in order; empty without a delimiter
 * @param nextToken pass it to get the next page; null on the last page
 */
public record RemotePage(List<RemoteObject> objects, List<String> commonPrefixes, String nextToken) {
  public RemotePage {
    objects = List.copyOf(objects);
    commonPrefixes = commonPrefixes == null ? List.of() : List.copyOf(commonPrefixes);
  }
}
