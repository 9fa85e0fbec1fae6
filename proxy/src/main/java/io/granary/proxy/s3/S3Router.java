package io.granary.proxy.s3;

import io.granary.common.s3.S3Responses;
import io.granary.clustermap.Node;
import io.granary.clustermap.acl.CannedAcl;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.error.MethodNotAllowedException;
import io.granary.common.error.NotImplementedException;
import io.granary.common.api.GranaryHeaders;
import io.granary.common.http.AfterBody;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.http.Router;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.ObjectOwner;
import io.granary.common.s3.CannedAclHeader;
import io.granary.common.s3.LocationConstraint;
import io.granary.common.s3.S3ApiException;
import io.granary.common.s3.S3Errors;
import io.granary.common.s3.VersioningConfiguration;
import io.granary.proxy.ProxyContext;
import io.granary.common.s3.auth.Authentication;
import io.granary.common.s3.auth.RequestAuthenticator;
import io.granary.common.http.relay.RequestBody;
import io.granary.common.s3.PlainReads;
import io.granary.common.s3.S3Buckets;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The S3 API of a proxy: path-style requests at the root and under {@code /s3/}. Every request is authenticated
 * first (SigV4, or anonymous when enabled). Requests naming a key go to the key's owning target through a relay
 * (or, in redirect mode, GET and HEAD are answered with a 307 to a signed target URL); service and bucket requests
 * are answered here. Sub-resources Granary does not implement (policies, lifecycle...) are 501. Unsigned requests
 * (without {@code --anonymous}) may only read what is public-read ({@link AnonymousAccess}).
 */
public final class S3Router implements Router {
  /** The region a cluster reports: S3 clients need one; a cluster has one location. */
  static final String REGION = "us-east-1";
  private static final Set<String> UNSUPPORTED_BUCKET = Set.of("policy", "policyStatus", "lifecycle", "cors",
      "tagging", "website", "replication", "notification", "encryption", "logging", "object-lock",
      "ownershipControls", "publicAccessBlock", "requestPayment", "accelerate", "analytics", "inventory", "metrics",
      "intelligent-tiering", "versions");
  private static final Set<String> UNSUPPORTED_OBJECT = Set.of("tagging", "retention", "legal-hold",
      "torrent", "restore", "select");

  private final ProxyContext ctx;
  private final S3ObjectForwarder forwarder;
  private final BucketAdmin admin;

  public S3Router(ProxyContext ctx) {
    this.ctx = ctx;
    this.forwarder = new S3ObjectForwarder(ctx.cluster(), ctx.upstream(), ctx.signer(),
        ctx.upstreamHeadTimeout());
    this.admin = new BucketAdmin(ctx);
  }

  @Override
  public RequestHandler route(HttpExchange ex) {
    ex.useErrorRenderer(S3Errors.RENDERER);
    S3Path path = S3Path.parse(ex.path());
    Authentication auth = ctx.auth().verifyIfSigned(ex);
    // Unsigned, without --anonymous: only public-read things may be read; objects are decided by their target.
    boolean restricted = auth == null && !ctx.auth().anonymousAllowed();
    HttpMethod m = ex.method();
    Map<String, List<String>> q = ex.queryParams();
    if (path.service()) {
      if (restricted) {
        throw RequestAuthenticator.unsigned();
      }
      if (m.equals(HttpMethod.GET)) {
        return afterVerifiedBody(ex, auth, new ListBucketsHandler(ctx.cluster()));
      }
      throw new MethodNotAllowedException(m, "/");
    }
    if (!path.hasKey()) {
      if (restricted) {
        AnonymousAccess.checkBucket(ctx.cluster(), path.bucket(), m, q);
      }
      RequestHandler h = bucketOperation(ex, path, auth, m, q);
      return h instanceof S3BodyCollector ? h : afterVerifiedBody(ex, auth, h);
    }
    for (String sub : UNSUPPORTED_OBJECT) {
      if (q.containsKey(sub)) {
        throw new NotImplementedException("the object sub-resource ?" + sub + " is not implemented");
      }
    }
    if (restricted) {
      AnonymousAccess.checkObject(ctx.cluster(), path.bucket(), m, q);
    }
    BucketProps bucket = S3Buckets.resolve(ctx.cluster(), path.bucket());
    ObjectAcls.check(ex, bucket, m, q); // refused ACLs answered here, before any body is relayed
    // A redirect URL carries no anonymous mark the client could not strip, so unsigned reads are always relayed.
    if (!restricted && ctx.s3Redirect() && (m.equals(HttpMethod.GET) || m.equals(HttpMethod.HEAD))
        && PlainReads.test(q)) {
      return afterVerifiedBody(ex, auth, redirect(bucket, path));
    }
    return forwarder.forward(ex, path, bucket, S3Bodies.of(ex, auth), restricted);
  }

  private RequestHandler bucketOperation(HttpExchange ex, S3Path path, Authentication auth, HttpMethod m,
      Map<String, List<String>> q) {
    for (String sub : UNSUPPORTED_BUCKET) {
      if (q.containsKey(sub)) {
        throw new NotImplementedException("the bucket sub-resource ?" + sub + " is not implemented");
      }
    }
    String name = path.bucket();
    if (q.containsKey("acl")) {
      return BucketAclHandler.forRequest(ex, ctx, admin, name, S3Bodies.of(ex, auth));
    }
    if (m.equals(HttpMethod.GET)) {
      if (q.containsKey("location")) {
        S3Buckets.resolve(ctx.cluster(), name);
        return exchange -> S3Responses.xml(exchange, HttpResponseStatus.OK, new LocationConstraint(REGION));
      }
      if (q.containsKey("versioning")) {
        S3Buckets.resolve(ctx.cluster(), name);
        return exchange -> S3Responses.xml(exchange, HttpResponseStatus.OK, new VersioningConfiguration());
      }
      if (q.containsKey("uploads")) {
        return new ListUploadsHandler(ctx, name);
      }
      String listType = ex.queryParam("list-type");
      if (listType != null && !listType.equals("2")) {
        throw S3ApiException.invalidArgument("list-type must be 2 when given", "list-type", listType);
      }
      return new ListObjectsHandler(ctx, name, listType != null);
    } else if (m.equals(HttpMethod.HEAD)) {
      return new HeadBucketHandler(ctx.cluster(), name);
    } else if (m.equals(HttpMethod.PUT)) {
      if (!q.isEmpty() && !q.containsKey("x-id")) {
        throw new NotImplementedException("PUT on a bucket with ?" + q.keySet() + " is not implemented");
      }
      CannedAcl acl = CannedAclHeader.parse(ex.request().headers()); // 501/400 before anything is created
      return new CreateBucketHandler(S3Bodies.of(ex, auth), admin, name, acl == null ? CannedAcl.PRIVATE : acl);
    } else if (m.equals(HttpMethod.DELETE)) {
      return new DeleteBucketHandler(ctx, admin, name);
    } else if (m.equals(HttpMethod.POST) && q.containsKey("delete")) {
      return new DeleteObjectsHandler(S3Bodies.of(ex, auth), ctx, forwarder, name);
    }
    throw new MethodNotAllowedException(m, ex.path().raw());
  }

  /**
   * {@code handler}, served from the request head, run only once a body sent with it has arrived whole and matches
   * what the signature says of it (payload hash, aws-chunked signatures): a refused request changes nothing.
   * Relayed object requests need no such wrapper: the proxy withholds the end of a failing body and the target
   * acts only on a complete one.
   */
  private static RequestHandler afterVerifiedBody(HttpExchange ex, Authentication auth, RequestHandler handler) {
    if (!ex.hasBody()) {
      return handler;
    }
    RequestBody body = S3Bodies.of(ex, auth);
    return AfterBody.of(ex, handler, chunk -> {
      body.accept(chunk.content(), ByteBuf::release); // the bytes are not used, only verified
      if (chunk instanceof LastHttpContent) {
        body.finish();
      }
    });
  }

  /** A 307 to the owner, with the request's own query (minus its presigned signature) and a cluster signature. */
  private RequestHandler redirect(BucketProps bucket, S3Path path) {
    ClusterMetadataHolder.Snapshot s = ctx.cluster().require();
    Node owner = ObjectOwner.forRead(s, bucket, path.key()); // plain reads only
    return exchange -> {
      String query = S3ObjectForwarder.stripAuthParams(exchange.path().rawQuery());
      String uri = "/s3/" + bucket.bucket().name() + "/" + path.rawKey() + "?" + (query.isEmpty() ? "" : query + "&")
          + GranaryHeaders.MAP_VERSION_PARAM + "=" + s.map().version();
      String location = owner.url() + (ctx.signer() == null ? uri
          : ctx.signer().signUrl(exchange.method().name(), uri, 300));
      exchange.sendRedirect(location);
    };
  }
}
