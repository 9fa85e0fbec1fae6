package io.granary.proxy.s3;

import io.granary.common.s3.S3Responses;
import io.granary.clustermap.Node;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.NameOrder;
import io.granary.common.api.ListParams;
import io.granary.common.control.ControlClient;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.listing.ListPage;
import io.granary.common.listing.ObjectEntry;
import io.granary.common.s3.ListBucketResultV1;
import io.granary.common.s3.ListBucketResultV2;
import io.granary.common.s3.ListedObject;
import io.granary.common.s3.ObjectListing;
import io.granary.common.s3.S3ApiException;
import io.granary.common.s3.S3UrlEncoding;
import io.granary.proxy.ProxyContext;
import io.granary.common.s3.S3Buckets;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.time.Instant;
import java.util.List;

/**
 * {@code GET /BUCKET} (ListObjects) and {@code GET /BUCKET?list-type=2} (ListObjectsV2): prefix, delimiter with
 * CommonPrefixes, max-keys (at most 1000, as S3), continuation-token / start-after (V2) or marker (V1),
 * encoding-type=url. The listing is merged across targets; objects and prefixes share max-keys.
 */
final class ListObjectsHandler implements RequestHandler {
  static final int MAX_KEYS = 1000;

  private final ProxyContext ctx;
  private final String bucketName;
  private final boolean v2;

  ListObjectsHandler(ProxyContext ctx, String bucketName, boolean v2) {
    this.ctx = ctx;
    this.bucketName = bucketName;
    this.v2 = v2;
  }

  @Override
  public void onRequest(HttpExchange ex) {
    BucketProps bucket = S3Buckets.resolve(ctx.cluster(), bucketName);
    String prefix = param(ex, "prefix");
    String delimiter = param(ex, "delimiter");
    String encoding = ex.queryParam("encoding-type");
    boolean url = S3UrlEncoding.requested(encoding);
    int maxKeys = maxKeys(ex.queryParam("max-keys"));
    String token = v2 ? ex.queryParam("continuation-token") : null;
    String startAfter = v2 ? ex.queryParam("start-after") : ex.queryParam("marker");
    String after = token != null && !token.isEmpty() ? ListParams.nameFromToken(token) : startAfter;
    if (after != null && startAfter != null && NameOrder.INSTANCE.compare(startAfter, after) > 0) {
      after = startAfter;
    }
    if (maxKeys == 0) {
      answer(ex, prefix, delimiter, maxKeys, token, startAfter, url, new ListPage(List.of(), null));
      return;
    }
    List<Node> targets = ctx.cluster().require().placement().holders();
    String effective = after == null || after.isEmpty() ? null : after;
    ctx.lister().listForClient(targets, bucket, new ListParams(prefix, effective, maxKeys, delimiter), false)
        .whenComplete((page, err) -> {
          if (err != null) {
            ex.sendError(ControlClient.cause(err));
          } else {
            answer(ex, prefix, delimiter, maxKeys, token, startAfter, url, page);
          }
        });
  }

  private void answer(HttpExchange ex, String prefix, String delimiter, int maxKeys, String token, String startAfter,
      boolean url, ListPage page) {
    List<ListedObject> objects = page.entries().stream().map(ListObjectsHandler::listed).toList();
    boolean truncated = page.token() != null;
    if (v2) {
      ObjectListing listing = new ObjectListing(objects, page.prefixes(), truncated, page.token());
      boolean fetchOwner = "true".equalsIgnoreCase(ex.queryParam("fetch-owner")); // V2 lists owners on request only
      S3Responses.xml(ex, HttpResponseStatus.OK, new ListBucketResultV2(bucketName, prefix, delimiter, maxKeys, token,
          startAfter, url, fetchOwner ? S3Owner.OWNER : null, listing));
    } else {
      String last = lastItem(page);
      ObjectListing listing = new ObjectListing(objects, page.prefixes(), truncated, truncated ? last : null);
      S3Responses.xml(ex, HttpResponseStatus.OK, new ListBucketResultV1(bucketName, prefix, startAfter, delimiter,
          maxKeys, url, S3Owner.OWNER, listing));
    }
  }

  private static String lastItem(ListPage page) {
    String lastEntry = page.entries().isEmpty() ? null : page.entries().get(page.entries().size() - 1).name();
    String lastPrefix = page.prefixes().isEmpty() ? null : page.prefixes().get(page.prefixes().size() - 1);
    if (lastEntry == null) {
      return lastPrefix;
    }
    if (lastPrefix == null) {
      return lastEntry;
    }
    return NameOrder.INSTANCE.compare(lastEntry, lastPrefix) > 0 ? lastEntry : lastPrefix;
  }

  static ListedObject listed(ObjectEntry e) {
    return new ListedObject(e.name(), Instant.ofEpochMilli(e.mtime()), e.etag(), e.size(), "STANDARD");
  }

  private static String param(HttpExchange ex, String name) {
    String v = ex.queryParam(name);
    return v == null ? "" : v;
  }

  static int maxKeys(String value) {
    if (value == null || value.isEmpty()) {
      return MAX_KEYS;
    }
    int n;
    try {
      n = Integer.parseInt(value);
    } catch (NumberFormatException e) {
      n = -1;
    }
    if (n < 0) {
      throw S3ApiException.invalidArgument("max-keys must be a non-negative integer", "max-keys", value);
    }
    return Math.min(n, MAX_KEYS);
  }
}
