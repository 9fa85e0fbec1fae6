package io.granary.proxy.s3;

import io.granary.clustermap.acl.CannedAcl;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.common.api.ApiPaths;
import io.granary.common.control.ControlClient;
import io.granary.common.error.RemoteApiException;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.membership.ClusterMetadata;
import io.granary.proxy.ProxyContext;
import io.granary.proxy.membership.PrimaryRole;
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
    PrimaryRole.Term term = ctx.term();
    if (term != null) {
      return ctx.control().submit(() -> {
        ClusterMetadata md = term.authority().createBucket(bucket, checksum, null, null, acl);
        term.pusher().awaitAcked(md, PUSH_WAIT);
        return null;
      });
    }
    return remote("POST", ApiPaths.BUCKETS_SLASH + bucket.name() + "?acl="
        + acl.wireName(), Map.of("checksum", checksum.wireName()));
  }

  /** Sets a bucket's canned ACL, answering once every active node has it (like creation). */
  CompletableFuture<Void> setAcl(Bucket bucket, CannedAcl acl) {
    PrimaryRole.Term term = ctx.term();
    if (term != null) {
      return ctx.control().submit(() -> {
        ClusterMetadata md = term.authority().setBucketAcl(bucket, acl);
        term.pusher().awaitAcked(md, PUSH_WAIT);
        return null;
      });
    }
    return remote("PUT", ApiPaths.BUCKETS_SLASH + bucket.name() + "?acl="
        + acl.wireName() + "&provider=" + bucket.provider().wireName(), null);
  }

  CompletableFuture<Void> delete(Bucket bucket) {
    PrimaryRole.Term term = ctx.term();
    if (term != null) {
      return ctx.control().submit(() -> {
        ClusterMetadata md = term.authority().deleteBucket(bucket);
        term.pusher().awaitAcked(md, PUSH_WAIT);
        return null;
      });
    }
    return remote("DELETE", ApiPaths.BUCKETS_SLASH + bucket.name()
        + "?force=true&provider=" + bucket.provider().wireName(), null);
  }

  /** Sends the change to the primary; its refusal comes back as the API error it was. */
  private CompletableFuture<Void> remote(String method, String path, Object body) {
    String primaryUrl = ctx.primaryUrl();
    if (primaryUrl == null) {
      return CompletableFuture.failedFuture(new ServiceUnavailableException(
          ServiceUnavailableException.PRIMARY_UNREACHABLE, "no primary proxy is known yet (an election is on)", 2));
    }
    return ctx.client().send(method, primaryUrl + path, body, Void.class).exceptionallyCompose(err -> {
      Throwable cause = ControlClient.cause(err);
      if (cause instanceof ControlClient.RemoteCallException rce) {
        return CompletableFuture.failedFuture(
            new RemoteApiException(rce.status(), rce.error().code(), rce.error().message()));
      }
      return CompletableFuture.failedFuture(cause);
    });
  }
}
