package io.granary.proxy.s3;

import io.granary.clustermap.acl.CannedAcl;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.common.api.ApiPaths;
import io.granary.common.control.ControlClient;
import io.granary.common.error.RemoteApiException;
import io.granary.common.membership.ClusterMetadata;
import io.granary.proxy.ProxyContext;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Bucket creation, deletion and ACL changes for the S3 API: on the primary through its authority (answering once every active
 * node has the change); on another proxy by a signed call to the primary's native API.
 */
final class BucketAdmin {
  private static final Duration PUSH_WAIT = Duration.ofSeconds(10);
  private final ProxyContext ctx;

  BucketAdmin(ProxyContext ctx) {
    this.ctx = ctx;
  }

  CompletableFuture<Void> create(Bucket bucket, ChecksumType checksum, CannedAcl acl) {
    if (ctx.primary()) {
      return ctx.control().submit(() -> {
        ClusterMetadata md = ctx.authority().createBucket(bucket, checksum, null, null, acl);
        ctx.pusher().awaitAcked(md, PUSH_WAIT);
        return null;
      });
    }
    return remote(ctx.client().send("POST", ctx.primaryUrl() + ApiPaths.BUCKETS_SLASH + bucket.name() + "?acl="
        + acl.wireName(), Map.of("checksum", checksum.wireName()), Void.class));
  }

  /** Sets a bucket's canned ACL, answering once every active node has it (like creation). */
  CompletableFuture<Void> setAcl(Bucket bucket, CannedAcl acl) {
    if (ctx.primary()) {
      return ctx.control().submit(() -> {
        ClusterMetadata md = ctx.authority().setBucketAcl(bucket, acl);
        ctx.pusher().awaitAcked(md, PUSH_WAIT);
        return null;
      });
    }
    return remote(ctx.client().send("PUT", ctx.primaryUrl() + ApiPaths.BUCKETS_SLASH + bucket.name() + "?acl="
        + acl.wireName() + "&provider=" + bucket.provider().wireName(), null, Void.class));
  }

  CompletableFuture<Void> delete(Bucket bucket) {
    if (ctx.primary()) {
      return ctx.control().submit(() -> {
        ClusterMetadata md = ctx.authority().deleteBucket(bucket);
        ctx.pusher().awaitAcked(md, PUSH_WAIT);
        return null;
      });
    }
    return remote(ctx.client().send("DELETE", ctx.primaryUrl() + ApiPaths.BUCKETS_SLASH + bucket.name()
        + "?force=true&provider=" + bucket.provider().wireName(), null, Void.class));
  }

  /** The primary's refusal, as the API error it was. */
  private static CompletableFuture<Void> remote(CompletableFuture<Void> call) {
    return call.exceptionallyCompose(err -> {
      Throwable cause = ControlClient.cause(err);
      if (cause instanceof ControlClient.RemoteCallException rce) {
        return CompletableFuture.failedFuture(
            new RemoteApiException(rce.status(), rce.error().code(), rce.error().message()));
      }
      return CompletableFuture.failedFuture(cause);
    });
  }
}
