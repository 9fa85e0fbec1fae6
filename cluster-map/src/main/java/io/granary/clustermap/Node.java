package io.granary.clustermap;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.security.SecureRandom;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One node in the cluster map.
 *
 * @param id stable node id; a restarted node comes back with the same id and so the same HRW place
 * @param role proxy or target
 * @param url base URL clients and peers use to reach the node, e.g. {@code http://10.0.0.5:51081}
 * @param state life-cycle state
 * @param weight relative capacity weight for placement (targets; 1 when unset)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Node(String id, NodeRole role, String url, NodeState state, double weight) {
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,62}");

  public Node {
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(state, "state");
    requireValidId(id);
    if (weight == 0) {
      weight = 1; // absent in JSON
    }
    if (!(weight > 0) || Double.isInfinite(weight)) {
      throw new IllegalArgumentException("node weight must be a positive number, got " + weight);
    }
    if (url.endsWith("/")) {
      url = url.substring(0, url.length() - 1);
    }
  }

  /** Checks a node id: 1-63 characters of letters, digits, '.', '_' and '-', starting with a letter or digit. */
  public static String requireValidId(String id) {
    if (id == null || !ID.matcher(id).matches()) {
      throw new IllegalArgumentException(
          "invalid node id '" + id + "': use 1-63 letters, digits, '.', '_' or '-', starting with a letter or digit");
    }
    return id;
  }

  /** A new random id: {@code prefix} and 8 lowercase letters or digits (prefix "t" for targets, "p" for proxies). */
  public static String randomId(String prefix) {
    SecureRandom r = new SecureRandom();
    StringBuilder sb = new StringBuilder(prefix);
    for (int i = 0; i < 8; i++) {
      sb.append("abcdefghijklmnopqrstuvwxyz0123456789".charAt(r.nextInt(36)));
    }
    return requireValidId(sb.toString());
  }

  public Node withState(NodeState newState) {
    return new Node(id, role, url, newState, weight);
  }

  public Node withUrl(String newUrl) {
    return new Node(id, role, newUrl, state, weight);
  }

  public Node withWeight(double newWeight) {
    return new Node(id, role, url, state, newWeight);
  }
}
