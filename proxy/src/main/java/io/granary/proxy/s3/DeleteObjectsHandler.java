package io.granary.proxy.s3;

import io.granary.common.s3.S3Responses;
import io.granary.clustermap.Node;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ObjectName;
import io.granary.common.api.ApiPaths;
import io.granary.common.api.GranaryHeaders;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.ObjectOwner;
import io.granary.common.control.ControlClient;
import io.granary.common.error.ApiException;
import io.granary.common.error.ChecksumMismatchException;
import io.granary.common.error.InternalErrorException;
import io.granary.common.error.RemoteApiException;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestPath;
import io.granary.common.s3.DeleteError;
import io.granary.common.s3.DeleteRequest;
import io.granary.common.s3.DeleteResult;
import io.granary.common.s3.ObjectIdentifier;
import io.granary.common.s3.S3ApiException;
import io.granary.proxy.ProxyContext;
import io.granary.common.http.relay.RequestBody;
import io.granary.common.s3.S3Buckets;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * {@code POST /BUCKET?delete}: DeleteObjects, up to 1000 keys. Each key is deleted on its owning target (in
 * parallel); the answer lists each key as Deleted or as an Error with its code, or only the errors in quiet
 * mode. A Content-MD5, when sent, must match the body.
 */
final class DeleteObjectsHandler extends S3BodyCollector {
  private final ProxyContext ctx;
  private final S3ObjectForwarder forwarder;
  private final String bucketName;

  DeleteObjectsHandler(RequestBody body, ProxyContext ctx, S3ObjectForwarder forwarder, String bucketName) {
    super(body, 2 << 20);
    this.ctx = ctx;
    this.forwarder = forwarder;
    this.bucketName = bucketName;
  }

  @Override
  protected void handle(HttpExchange ex, byte[] body) throws Exception {
    BucketProps bucket = S3Buckets.resolve(ctx.cluster(), bucketName);
    String md5 = ex.header(HttpHeaderNames.CONTENT_MD5);
    if (md5 != null) {
      String actual = Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(body));
      if (!actual.equals(md5.trim())) {
        throw new ChecksumMismatchException("md5", md5, actual);
      }
    }
    DeleteRequest req = DeleteRequest.parse(body);
    List<CompletableFuture<DeleteError>> results = new ArrayList<>();
    for (ObjectIdentifier o : req.objects()) {
      results.add(delete(bucket, o));
    }
    CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).whenComplete((v, err) -> {
      List<ObjectIdentifier> deleted = new ArrayList<>();
      List<DeleteError> errors = new ArrayList<>();
      for (int i = 0; i < results.size(); i++) {
        DeleteError e = results.get(i).join();
        if (e == null) {
          deleted.add(req.objects().get(i));
        } else {
          errors.add(e);
        }
      }
      S3Responses.xml(ex, HttpResponseStatus.OK, new DeleteResult(req.quiet(), deleted, errors));
    });
  }

  /** Deletes one key on its owner; completes with null when deleted (or absent), else the error to report. */
  private CompletableFuture<DeleteError> delete(BucketProps bucket, ObjectIdentifier o) {
    try {
      ObjectName.requireValid(o.key());
      ClusterMetadataHolder.Snapshot s = ctx.cluster().require();
      Node owner = ObjectOwner.require(s, bucket.bucket(), o.key());
      String url = owner.url() + ApiPaths.OBJECTS + bucket.bucket().name() + "/" + RequestPath.encodePath(o.key())
          + "?provider=" + bucket.bucket().provider().wireName() + "&" + GranaryHeaders.MAP_VERSION_PARAM + "="
          + s.map().version();
      return ctx.client().send("DELETE", url, null, Void.class)
          .handle((ok, err) -> err == null || notFound(err) ? null : DeleteError.of(o, asApi(err)));
    } catch (IllegalArgumentException e) {
      return CompletableFuture.completedFuture(DeleteError.of(o,
          S3ApiException.invalidArgument(e.getMessage(), "Key", null)));
    } catch (ApiException e) {
      return CompletableFuture.completedFuture(DeleteError.of(o, e));
    }
  }

  /** S3 reports deleting a missing key as deleted. */
  private static boolean notFound(Throwable err) {
    return ControlClient.cause(err) instanceof ControlClient.RemoteCallException rce && rce.status() == 404
        && "ObjectNotFound".equals(rce.error().code());
  }

  private static ApiException asApi(Throwable err) {
    Throwable cause = ControlClient.cause(err);
    if (cause instanceof ControlClient.RemoteCallException rce) {
      return new RemoteApiException(rce.status(), rce.error().code(), rce.error().message());
    }
    return new InternalErrorException("deleting failed: " + cause, cause);
  }
}
