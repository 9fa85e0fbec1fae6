package io.granary.proxy.s3;

import io.granary.common.s3.S3Responses;
import com.fasterxml.jackson.databind.JavaType;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.NameOrder;
import io.granary.common.api.ApiPaths;
import io.granary.common.control.ControlClient;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.s3.ListMultipartUploadsResult;
import io.granary.common.s3.ListedUpload;
import io.granary.common.s3.MultipartUploadListing;
import io.granary.common.s3.S3ApiException;
import io.granary.common.s3.S3UrlEncoding;
import io.granary.proxy.ProxyContext;
import io.granary.common.s3.S3Buckets;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * {@code GET /BUCKET?uploads}: ListMultipartUploads. Uploads live on the targets that created them (the targets in
 * placement, and those leaving it while the map is not settled); each target lists its own and the pages are merged
 * in (key, upload id) order. prefix, delimiter, key-marker, upload-id-marker and max-uploads (at most 1000) as S3
 * has them.
 */
final class ListUploadsHandler implements RequestHandler {
  private static final JavaType UPLOADS = ClusterJson.mapper().getTypeFactory()
      .constructCollectionType(List.class, TargetUpload.class);

  /** What a target reports per upload (its internal listing). */
  record TargetUpload(String uploadId, String name, long initiated) {
  }

  private final ProxyContext ctx;
  private final String bucketName;

  ListUploadsHandler(ProxyContext ctx, String bucketName) {
    this.ctx = ctx;
    this.bucketName = bucketName;
  }

  @Override
  public void onRequest(HttpExchange ex) {
    BucketProps bucket = S3Buckets.resolve(ctx.cluster(), bucketName);
    String prefix = orEmpty(ex.queryParam("prefix"));
    String delimiter = orEmpty(ex.queryParam("delimiter"));
    String keyMarker = orEmpty(ex.queryParam("key-marker"));
    String uploadIdMarker = orEmpty(ex.queryParam("upload-id-marker"));
    boolean url = S3UrlEncoding.requested(ex.queryParam("encoding-type"));
    int max = maxUploads(ex.queryParam("max-uploads"));
    List<CompletableFuture<List<TargetUpload>>> pages = new ArrayList<>();
    ClusterMap map = ctx.cluster().require().map();
    for (Node t : map.targets().values()) {
      // A target leaving placement keeps its uploads until they end, and the map stays unsettled until then.
      boolean leaving = t.state() == NodeState.MAINTENANCE || t.state() == NodeState.DECOMMISSIONING;
      if (!t.state().inPlacement() && !(leaving && !map.settled())) {
        continue;
      }
      if (t.state() == NodeState.OFFLINE || t.state() == NodeState.SUSPENDED) {
        throw new ServiceUnavailableException(ServiceUnavailableException.TARGET_OFFLINE,
            "target " + t.id() + " is " + t.state().wireName() + "; the list of uploads would be incomplete", 5);
      }
      String q = "?uploads&provider=" + bucket.bucket().provider().wireName() + "&prefix=" + enc(prefix)
          + "&key-marker=" + enc(keyMarker) + "&upload-id-marker=" + enc(uploadIdMarker) + "&max-uploads=" + (max + 1);
      pages.add(ctx.client().get(t.url() + ApiPaths.BUCKETS_SLASH + bucket.bucket().name() + q, UPLOADS)
          .thenApply(l -> (List<TargetUpload>) l));
    }
    CompletableFuture.allOf(pages.toArray(CompletableFuture[]::new)).whenComplete((v, err) -> {
      if (err != null) {
        ex.sendError(ControlClient.cause(err));
        return;
      }
      List<TargetUpload> all = new ArrayList<>();
      pages.forEach(p -> all.addAll(p.join()));
      all.sort(Comparator.comparing(TargetUpload::name, NameOrder.INSTANCE).thenComparing(TargetUpload::uploadId));
      List<ListedUpload> uploads = new ArrayList<>();
      List<String> prefixes = new ArrayList<>();
      boolean truncated = false;
      TargetUpload last = null;
      for (TargetUpload u : all) {
        if (uploads.size() + prefixes.size() == max) {
          truncated = true;
          break;
        }
        int d = delimiter.isEmpty() ? -1 : u.name().indexOf(delimiter, prefix.length());
        if (d >= 0) {
          String common = u.name().substring(0, d + delimiter.length());
          if (!prefixes.contains(common)) {
            prefixes.add(common);
          }
        } else {
          uploads.add(new ListedUpload(u.name(), u.uploadId(), Instant.ofEpochMilli(u.initiated())));
        }
        last = u;
      }
      MultipartUploadListing listing = new MultipartUploadListing(uploads, prefixes, truncated,
          truncated && last != null ? last.name() : null, truncated && last != null ? last.uploadId() : null);
      S3Responses.xml(ex, HttpResponseStatus.OK, new ListMultipartUploadsResult(bucketName, prefix, delimiter,
          keyMarker, uploadIdMarker, max, url, S3Owner.OWNER, listing));
    });
  }

  private static int maxUploads(String value) {
    if (value == null || value.isEmpty()) {
      return 1000;
    }
    try {
      int n = Integer.parseInt(value);
      if (n >= 1) {
        return Math.min(n, 1000);
      }
    } catch (NumberFormatException e) {
      // below
    }
    throw S3ApiException.invalidArgument("max-uploads must be a positive integer", "max-uploads", value);
  }

  private static String orEmpty(String s) {
    return s == null ? "" : s;
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
