package io.granary.proxy.s3;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.s3.S3ApiException;
import io.granary.common.s3.auth.RequestAuthenticator;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What an unsigned S3 request may do when the proxy does not run with {@code --anonymous}, as S3 decides for
 * the AllUsers group:
 * <ul>
 *   <li>list (ListObjects, ListObjectsV2) and HEAD a local bucket whose ACL is public-read;
 *   <li>GET and HEAD an object of a local bucket, and GetObjectAttributes ({@code GET ?attributes}, which S3 grants
 *       with READ on the object as it does GetObject): relayed marked anonymous, and the object's owning target,
 *       which alone knows the object's ACL, serves it only when it is public-read. A public-read bucket does not
 *       make its objects readable (S3: the bucket ACL's READ is the right to list).
 * </ul>
 * Everything else is 403 AccessDenied: every write, delete, ACL read or change, multipart operation, ListBuckets,
 * and any request on a remote bucket (an unsigned client must not make the cluster fetch from another store). A
 * missing bucket is 403 too, so unsigned clients cannot probe names.
 */
final class AnonymousAccess {
  /** The query parameters of a listing; any other names a sub-resource (?acl, ?uploads, ?location...). */
  private static final Set<String> LIST_PARAMS = Set.of("list-type", "prefix", "delimiter", "max-keys",
      "continuation-token", "start-after", "marker", "encoding-type", "fetch-owner", "x-id");
  /** The query parameters of a plain object read. */
  private static final Set<String> READ_PARAMS = Set.of("partNumber", "x-id");
  /** GetObjectAttributes' sub-resource: a GET only, answered from the object's record. */
  private static final String ATTRIBUTES = "attributes";

  private AnonymousAccess() {}

  /** Refuses (403) an unsigned request on a bucket other than listing or HEAD of a public-read bucket. */
  static void checkBucket(ClusterMetadataHolder cluster, String bucket, HttpMethod m, Map<String, List<String>> q) {
    boolean read = m.equals(HttpMethod.HEAD) || (m.equals(HttpMethod.GET) && LIST_PARAMS.containsAll(q.keySet()));
    if (!read || !local(cluster, bucket).map(b -> b.acl().publicRead()).orElse(false)) {
      throw RequestAuthenticator.unsigned();
    }
  }

  /**
   * Refuses (403) an unsigned request on an object other than a plain GET or HEAD, or a GetObjectAttributes, in a
   * local bucket; one that passes is relayed marked anonymous for the target to decide.
   */
  static void checkObject(ClusterMetadataHolder cluster, String bucket, HttpMethod m, Map<String, List<String>> q) {
    boolean read = (m.equals(HttpMethod.GET) || m.equals(HttpMethod.HEAD))
        && q.keySet().stream().allMatch(n -> READ_PARAMS.contains(n) || n.startsWith("response-"));
    boolean attributes = m.equals(HttpMethod.GET) && q.containsKey(ATTRIBUTES)
        && q.keySet().stream().allMatch(n -> n.equals(ATTRIBUTES) || n.equals("x-id"));
    if (!(read || attributes) || local(cluster, bucket).isEmpty()) {
      throw RequestAuthenticator.unsigned();
    }
    if (q.keySet().stream().anyMatch(n -> n.startsWith("response-"))) { // as S3 answers
      throw new S3ApiException(HttpResponseStatus.BAD_REQUEST, "InvalidRequest",
          "Request specific response headers cannot be used for anonymous GET requests.");
    }
  }

  private static Optional<BucketProps> local(ClusterMetadataHolder cluster, String bucket) {
    return cluster.require().buckets().named(bucket).filter(b -> !b.isRemote());
  }
}
