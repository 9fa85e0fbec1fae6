package io.granary.common.api;

/**
 * Query parameters named {@code granary-*} belong to the cluster: nodes add them to the redirects they hand out (the
 * map version, get-from-neighbor markers, the URL signature) and a target trusts them only under a cluster
 * signature. A proxy drops any a client sent before it redirects or relays the request, as it drops the cluster's
 * headers, so a client cannot steer how a target answers.
 */
public final class ClusterQueryParams {
  static final String PREFIX = "granary-";

  private ClusterQueryParams() {}

  /** Whether one {@code name[=value]} piece of a raw query is a cluster parameter. */
  public static boolean isClusterParam(String piece) {
    return piece.regionMatches(true, 0, PREFIX, 0, PREFIX.length());
  }

  private static boolean mentionsPrefix(String rawQuery) {
    for (int i = 0; i + PREFIX.length() <= rawQuery.length(); i++) {
      if (rawQuery.regionMatches(true, i, PREFIX, 0, PREFIX.length())) {
        return true;
      }
    }
    return false;
  }

  /** {@code rawQuery} without the cluster's parameters (the empty string when nothing is left). */
  public static String without(String rawQuery) {
    if (!mentionsPrefix(rawQuery)) {
      return rawQuery; // the usual case, without splitting or allocating
    }
    StringBuilder sb = new StringBuilder();
    for (String p : rawQuery.split("&")) {
      if (!p.isEmpty() && !isClusterParam(p)) {
        sb.append(sb.length() == 0 ? "" : "&").append(p);
      }
    }
    return sb.toString();
  }
}
