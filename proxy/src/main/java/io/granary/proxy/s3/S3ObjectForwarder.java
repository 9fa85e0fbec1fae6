package io.granary.proxy.s3;

import io.granary.clustermap.Node;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.InvalidNameException;
import io.granary.clustermap.bucket.ObjectName;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.common.api.ClusterQueryParams;
import io.granary.common.api.GranaryHeaders;
import io.granary.common.auth.ClusterSigner;
import io.granary.common.error.BadRequestException;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.client.UpstreamPool;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.ObjectOwner;
import io.granary.common.http.relay.AnswerTimeout;
import io.granary.common.http.relay.ObjectRelay;
import io.granary.common.http.relay.RequestBody;
import io.granary.common.membership.UploadHolder;
import io.granary.common.s3.PlainReads;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Sends an S3 object request (object GET/HEAD/PUT/DELETE and the multipart operations on a key) to the target
 * that owns the key, or for a request naming an upload to the target holding it ({@link UploadHolder}), through an
 * {@link ObjectRelay}. The target sees {@code /s3/BUCKET/KEY?QUERY}, signed with the
 * cluster secret, without the client's own signature (which covered the proxy's host, not the target's).
 */
public final class S3ObjectForwarder {
  /** Request headers that belong to the client's hop or its signature, not to the object. */
  private static final List<String> DROPPED = List.of("authorization", "host", "connection", "keep-alive",
      "transfer-encoding", "content-length", "expect", "x-amz-content-sha256", "x-amz-decoded-content-length",
      "x-amz-trailer", "upgrade", "te", "proxy-connection", GranaryHeaders.ANONYMOUS.toString(),
      GranaryHeaders.CHECKSUM_TRAILER.toString(), GranaryHeaders.NEIGHBOR_READ.toString());

  private final ClusterMetadataHolder cluster;
  private final UpstreamPool pool;
  private final ClusterSigner signer; // null when the cluster runs without a secret
  private final Duration answerWait; // how long a request sent whole waits for the target's answer head
  private final Map<String, TargetAddress> addresses = new ConcurrentHashMap<>(); // by target URL
  private static final int MAX_ADDRESSES = 4096;

  public S3ObjectForwarder(ClusterMetadataHolder cluster, UpstreamPool pool, ClusterSigner signer,
      Duration answerWait) {
    this.cluster = cluster;
    this.pool = pool;
    this.signer = signer;
    this.answerWait = answerWait;
  }

  /** The relay for this request; validates bucket and key first (404, 400) and refuses an offline owner (503). */
  public ObjectRelay forward(HttpExchange ex, S3Path path, BucketProps bucket, RequestBody body) {
    return forward(ex, path, bucket, body, false);
  }

  /**
   * {@link #forward(HttpExchange, S3Path, BucketProps, RequestBody)}; {@code anonymous}: the client did not sign,
   * and the target is to serve only what is public-read ({@link GranaryHeaders#ANONYMOUS}).
   */
  public ObjectRelay forward(HttpExchange ex, S3Path path, BucketProps bucket, RequestBody body, boolean anonymous) {
    String key = path.key();
    try {
      ObjectName.requireValid(key);
    } catch (InvalidNameException e) {
      throw new BadRequestException(e.getMessage().contains("bytes") ? "KeyTooLongError" : "InvalidArgument",
          e.getMessage());
    }
    ClusterMetadataHolder.Snapshot snapshot = cluster.require();
    String uploadId = ex.queryParam("uploadId"); // UploadPart(Copy), ListParts, Complete, Abort
    boolean read = (ex.method().equals(HttpMethod.GET) || ex.method().equals(HttpMethod.HEAD))
        && PlainReads.test(ex.queryParams());
    Node owner = uploadId == null && read ? ObjectOwner.forRead(snapshot, bucket, key)
        : uploadId == null ? ObjectOwner.require(snapshot, bucket.bucket(), key)
        : UploadHolder.require(snapshot, bucket.bucket(), key, uploadId);
    String query = stripAuthParams(ex.path().rawQuery());
    String uri = "/s3/" + encodedBucket(bucket) + "/" + path.rawKey() + (query.isEmpty() ? "" : "?" + query);
    HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, ex.method(), uri);
    HttpHeaders h = head.headers();
    for (var e : ex.request().headers()) {
      if (!DROPPED.contains(e.getKey().toLowerCase(Locale.ROOT))) {
        h.add(e.getKey(), e.getValue());
      }
    }
    stripAwsChunked(h);
    TargetAddress target = address(owner.url());
    h.set(HttpHeaderNames.HOST, target.hostHeader());
    h.set("granary-provider", bucket.bucket().provider().wireName());
    h.set(GranaryHeaders.MAP_VERSION, snapshot.map().version());
    if (anonymous) {
      h.set(GranaryHeaders.ANONYMOUS, "1");
    }
    String trailer = body.checksumTrailer();
    if (trailer != null) { // verified by the body before the target may commit; the target keeps its value
      h.set(GranaryHeaders.CHECKSUM_TRAILER, trailer);
    }
    if (ex.hasBody() || body.decodedLength() > 0) {
      h.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
      if (body.decodedLength() >= 0) {
        h.set("x-amz-decoded-content-length", body.decodedLength());
      }
    }
    if (signer != null) {
      signer.signHeaders(head.method().name(), uri, h);
    }
    return new ObjectRelay(pool, target.socket(), owner.id(), head, body,
        null, new AnswerTimeout(answerWait, bucket.bucket().toString(), key));
  }

  /** A target's socket address and Host header: parsed once per target URL, not on every request. */
  private TargetAddress address(String url) {
    TargetAddress a = addresses.get(url);
    if (a == null) {
      if (addresses.size() >= MAX_ADDRESSES) {
        addresses.clear(); // targets come and go over a cluster's life; the live ones are parsed again
      }
      a = TargetAddress.parse(url);
      addresses.put(url, a);
    }
    return a;
  }

  /** Where a target listens, as the relay dials it and as the Host header names it. */
  record TargetAddress(InetSocketAddress socket, String hostHeader) {
    static TargetAddress parse(String url) {
      URI u = URI.create(url);
      return new TargetAddress(new InetSocketAddress(u.getHost(), u.getPort()), u.getHost() + ":" + u.getPort());
    }
  }

  /** The key's HRW owner; 503 when there is none or it cannot answer now. */
  Node owner(Bucket bucket, String key) {
    return ObjectOwner.require(cluster.require(), bucket, key);
  }

  private static String encodedBucket(BucketProps b) {
    return b.bucket().name(); // bucket names need no escaping
  }

  /**
   * Content-Encoding without the aws-chunked token (the proxy decodes it); removed when nothing else is left. The
   * other codings stay exactly as the client spelled them ({@code deflate, gzip} stays so), as S3 stores them.
   */
  static void stripAwsChunked(HttpHeaders h) {
    List<String> lines = h.getAll(HttpHeaderNames.CONTENT_ENCODING);
    if (lines.isEmpty()) {
      return;
    }
    String enc = String.join(",", lines); // several header lines are one list (RFC 9110 §5.3)
    StringBuilder kept = new StringBuilder();
    boolean stripped = false;
    for (String token : enc.split(",", -1)) {
      if (token.trim().equalsIgnoreCase("aws-chunked")) {
        stripped = true;
      } else if (!token.isBlank()) {
        kept.append(kept.length() == 0 ? "" : ",").append(token);
      }
    }
    if (!stripped) {
      return;
    }
    String rest = kept.toString().strip();
    if (rest.isEmpty()) {
      h.remove(HttpHeaderNames.CONTENT_ENCODING);
    } else {
      h.set(HttpHeaderNames.CONTENT_ENCODING, rest);
    }
  }

  /**
   * The query without presigned-URL parameters (SigV4's X-Amz-*, SigV2's AWSAccessKeyId, Expires and Signature),
   * which authenticated the client at the proxy, and without the cluster's own ({@link ClusterQueryParams}).
   */
  static String stripAuthParams(String rawQuery) {
    if (rawQuery.isEmpty()) {
      return rawQuery;
    }
    StringBuilder sb = new StringBuilder();
    for (String p : rawQuery.split("&")) {
      if (!p.regionMatches(true, 0, "X-Amz-", 0, 6) && !isSigV2Param(p) && !ClusterQueryParams.isClusterParam(p)) {
        sb.append(sb.length() == 0 ? "" : "&").append(p);
      }
    }
    return sb.toString();
  }

  private static boolean isSigV2Param(String piece) {
    int eq = piece.indexOf('=');
    String name = eq < 0 ? piece : piece.substring(0, eq);
    return name.equals("AWSAccessKeyId") || name.equals("Expires") || name.equals("Signature");
  }
}
