package io.granary.proxy.s3;

import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.Provider;
import io.granary.common.error.BucketNotFoundException;
import io.granary.common.error.NotImplementedException;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.http.Router;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.proxy.ProxyContext;
import io.granary.proxy.relay.PlainBody;
import io.granary.proxy.relay.RequestBody;
import io.netty.handler.codec.http.HttpUtil;

/**
 * The S3 API of a proxy: path-style requests at the root and under {@code /s3/}. Requests naming a key go to the
 * key's owning target through a relay; bucket and service requests are answered here.
 */
public final class S3Router implements Router {
  private final ProxyContext ctx;
  private final S3ObjectForwarder forwarder;

  public S3Router(ProxyContext ctx) {
    this.ctx = ctx;
    this.forwarder = new S3ObjectForwarder(ctx.cluster(), ctx.upstream(), ctx.signer());
  }

  @Override
  public RequestHandler route(HttpExchange ex) {
    S3Path path = S3Path.parse(ex.path());
    if (path.service() || !path.hasKey()) {
      throw new NotImplementedException("bucket-level S3 operations are not available yet");
    }
    BucketProps bucket = resolve(ctx.cluster(), path.bucket());
    RequestBody body = new PlainBody(HttpUtil.getContentLength(ex.request(), ex.hasBody() ? -1L : 0L), null);
    return forwarder.forward(ex, path, bucket, body);
  }

  /** A bucket by name alone, as S3 names them: the local bucket if there is one, else a registered remote one. */
  static BucketProps resolve(ClusterMetadataHolder cluster, String name) {
    io.granary.clustermap.bucket.BucketName.requireValid(name);
    for (Provider p : Provider.values()) {
      var found = cluster.require().buckets().get(new Bucket(p, name));
      if (found.isPresent()) {
        return found.get();
      }
    }
    throw new BucketNotFoundException(name);
  }
}
