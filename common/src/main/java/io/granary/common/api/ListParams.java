package io.granary.common.api;

import io.granary.clustermap.bucket.NameOrder;
import io.granary.common.error.BadRequestException;
import io.granary.common.http.HttpExchange;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;

/**
 * The paging parameters of an object listing: {@code prefix}, {@code start-after}, {@code limit} (1 to
 * {@value #MAX_LIMIT}, default {@value #DEFAULT_LIMIT}) and {@code token} (opaque, from the previous page). The
 * listing starts after the later of {@code start-after} and the token's position.
 *
 * @param prefix only names starting with this
 * @param startAfter only names sorting after this, or null
 * @param limit most entries (objects and common prefixes) in a page
 * @param delimiter with a non-empty delimiter, names whose remainder after the prefix contains it are rolled up
 *     into common prefixes; empty for a flat listing
 */
public record ListParams(String prefix, String startAfter, int limit, String delimiter) {
  public ListParams {
    delimiter = delimiter == null ? "" : delimiter;
  }

  public ListParams(String prefix, String startAfter, int limit) {
    this(prefix, startAfter, limit, "");
  }

  public static final int DEFAULT_LIMIT = 1000;
  public static final int MAX_LIMIT = 10_000;

  public static ListParams parse(HttpExchange ex) {
    String prefix = ex.queryParam("prefix");
    String startAfter = ex.queryParam("start-after");
    String token = ex.queryParam("token");
    String limitParam = ex.queryParam("limit");
    int limit = DEFAULT_LIMIT;
    if (limitParam != null && !limitParam.isEmpty()) {
      try {
        limit = Integer.parseInt(limitParam);
      } catch (NumberFormatException e) {
        limit = -1;
      }
      if (limit < 1 || limit > MAX_LIMIT) {
        throw BadRequestException.invalidArgument(
            "limit must be an integer from 1 to " + MAX_LIMIT + ", got '" + limitParam + "'");
      }
    }
    if (token != null && !token.isEmpty()) {
      String fromToken = nameFromToken(token);
      if (startAfter == null || NameOrder.INSTANCE.compare(fromToken, startAfter) > 0) {
        startAfter = fromToken;
      }
    }
    if (startAfter != null && startAfter.isEmpty()) {
      startAfter = null;
    }
    return new ListParams(prefix == null ? "" : prefix, startAfter, limit, ex.queryParam("delimiter"));
  }

  /** The opaque token that resumes a listing after {@code lastName}. */
  public static String token(String lastName) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(lastName.getBytes(StandardCharsets.UTF_8));
  }

  /** The name a token resumes after; 400 InvalidArgument for a token this API did not issue. */
  public static String nameFromToken(String token) {
    try {
      byte[] raw = Base64.getUrlDecoder().decode(token);
      String s = new String(raw, StandardCharsets.UTF_8);
      if (!Arrays.equals(s.getBytes(StandardCharsets.UTF_8), raw)) {
        throw new IllegalArgumentException("not UTF-8");
      }
      return s;
    } catch (IllegalArgumentException e) {
      throw BadRequestException.invalidArgument("token '" + token + "' is not a listing token from this API");
    }
  }
}
