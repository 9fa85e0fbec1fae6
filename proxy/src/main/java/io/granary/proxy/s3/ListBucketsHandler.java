package io.granary.proxy.s3;

import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.s3.ListAllMyBucketsResult;
import io.granary.common.s3.ListedBucket;
import io.granary.common.s3.S3ApiException;
import io.granary.common.s3.S3Responses;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;

/**
 * {@code GET /}: ListBuckets, every bucket in the bucket metadata (local and registered remote ones), by name. As
 * S3 pages it: {@code prefix} keeps the names that start with it, {@code max-buckets} (1 to 10,000) bounds a page,
 * and a page that is not the last ends with a {@code ContinuationToken} (opaque: the last name listed, encoded) to
 * pass as {@code continuation-token}. Without any of the three, one page holds every bucket.
 */
final class ListBucketsHandler implements RequestHandler {
  static final int MAX_BUCKETS = 10_000;
  private final ClusterMetadataHolder cluster;

  ListBucketsHandler(ClusterMetadataHolder cluster) {
    this.cluster = cluster;
  }

  @Override
  public void onRequest(HttpExchange ex) {
    String prefix = ex.queryParam("prefix");
    String token = ex.queryParam("continuation-token");
    int max = maxBuckets(ex.queryParam("max-buckets"));
    boolean paged = prefix != null || token != null || ex.queryParam("max-buckets") != null;
    String after = token == null || token.isEmpty() ? null : nameFromToken(token);
    List<ListedBucket> all = cluster.require().buckets().buckets().values().stream()
        .map(b -> new ListedBucket(b.bucket().name(), b.created()))
        .filter(b -> prefix == null || b.name().startsWith(prefix))
        .filter(b -> after == null || b.name().compareTo(after) > 0)
        .sorted(Comparator.comparing(ListedBucket::name))
        .toList();
    if (!paged) {
      S3Responses.xml(ex, HttpResponseStatus.OK, new ListAllMyBucketsResult(S3Owner.OWNER, all));
      return;
    }
    List<ListedBucket> page = new ArrayList<>(all.subList(0, Math.min(max, all.size())));
    String next = all.size() > page.size() ? tokenAfter(page.get(page.size() - 1).name()) : null;
    S3Responses.xml(ex, HttpResponseStatus.OK, new ListAllMyBucketsResult(S3Owner.OWNER, page, next, prefix));
  }

  static int maxBuckets(String value) {
    if (value == null) {
      return MAX_BUCKETS;
    }
    try {
      int n = Integer.parseInt(value);
      if (n >= 1 && n <= MAX_BUCKETS) {
        return n;
      }
    } catch (NumberFormatException ignored) {
      // refused below
    }
    throw S3ApiException.invalidArgument("max-buckets must be an integer from 1 to " + MAX_BUCKETS, "max-buckets",
        value);
  }

  static String tokenAfter(String name) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(name.getBytes(StandardCharsets.UTF_8));
  }

  static String nameFromToken(String token) {
    try {
      return new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw S3ApiException.invalidArgument("The continuation token provided is incorrect", "continuation-token",
          token);
    }
  }
}
