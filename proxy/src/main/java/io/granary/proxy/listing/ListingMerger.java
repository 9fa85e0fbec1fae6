package io.granary.proxy.listing;

import com.fasterxml.jackson.databind.JavaType;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.api.ApiPaths;
import io.granary.common.api.ListParams;
import io.granary.common.control.ControlClient;
import io.granary.common.error.ApiException;
import io.granary.common.error.InternalErrorException;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.http.RequestPath;
import io.granary.common.listing.ListPage;
import io.granary.common.listing.Pages;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import io.granary.backend.RemoteBuckets;
import io.granary.common.exec.BoundedExecutor;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One page of a bucket listing across all targets that hold placed objects. Each target returns its own sorted
 * page starting after the same name; the pages are merged in name order, duplicates dropped, and cut at the
 * limit. The next page starts after the last name returned, which is correct because every name a target held
 * back sorts after its last returned name, which sorts at or after the cut.
 *
 * <p>The targets asked are every one that may hold objects ({@code TargetPlacement#holders}): during a rebalance an
 * object may still be on a target that left placement, and a name found on two targets (moved, its source copy not
 * yet removed) is listed once, with the newer copy. A target that cannot answer (offline, suspended) makes the
 * listing fail with 503: a listing that silently skips a target's objects would look complete and be wrong.
 */
public final class ListingMerger {
  private static final JavaType PAGE = ClusterJson.mapper().constructType(ListPage.class);

  private final ControlClient client;
  private final RemoteListing remote;

  /**
   * @param remotes the open remote stores (remote buckets are listed from them)
   * @param pool where blocking remote list calls run
   */
  public ListingMerger(ControlClient client, RemoteBuckets remotes, BoundedExecutor pool) {
    this.client = client;
    this.remote = new RemoteListing(this, remotes, pool);
  }

  /**
   * What a client asks for: a remote bucket as its remote store lists it (objects marked cached or not), unless
   * {@code cachedOnly}; a local bucket, or only what is cached, from the targets.
   */
  public CompletableFuture<ListPage> listForClient(List<Node> targets, BucketProps bucket, ListParams params,
      boolean cachedOnly) {
    return bucket.isRemote() && !cachedOnly ? remote.list(targets, bucket, params) : list(targets, bucket, params);
  }

  /** One page of what the targets hold of {@code bucket}. */
  public CompletableFuture<ListPage> list(List<Node> targets, BucketProps bucket, ListParams params) {
    List<CompletableFuture<ListPage>> pages = new ArrayList<>();
    for (Node t : targets) {
      if (!t.state().serving()) {
        return CompletableFuture.failedFuture(new ServiceUnavailableException(ServiceUnavailableException.TARGET_OFFLINE,
            "target " + t.id() + " is " + t.state().wireName() + "; the listing of " + bucket.bucket()
                + " would be incomplete", 5));
      }
      pages.add(client.get(url(t, bucket, params), PAGE).thenApply(p -> (ListPage) p)
          .exceptionallyCompose(err -> CompletableFuture.failedFuture(wrap(t, err))));
    }
    return CompletableFuture.allOf(pages.toArray(CompletableFuture[]::new))
        .thenApply(v -> Pages.merge(pages.stream().map(CompletableFuture::join).toList(), params.limit(), false));
  }

  private static Throwable wrap(Node t, Throwable err) {
    Throwable cause = ControlClient.cause(err);
    if (cause instanceof ControlClient.RemoteCallException rce && rce.status() < 500) {
      return new InternalErrorException("target " + t.id() + " refused the listing: " + rce.getMessage(), rce);
    }
    if (cause instanceof ApiException api) {
      return api;
    }
    return new ServiceUnavailableException(ServiceUnavailableException.TARGET_OFFLINE,
        "target " + t.id() + " did not answer the listing: " + cause, 5);
  }

  private static String url(Node t, BucketProps bucket, ListParams p) {
    StringBuilder sb = new StringBuilder(t.url()).append(ApiPaths.BUCKETS_SLASH)
        .append(RequestPath.encodePath(bucket.bucket().name()))
        .append("?provider=").append(bucket.bucket().provider().wireName())
        .append("&limit=").append(p.limit())
        .append("&prefix=").append(URLEncoder.encode(p.prefix(), StandardCharsets.UTF_8));
    if (!p.delimiter().isEmpty()) {
      sb.append("&delimiter=").append(URLEncoder.encode(p.delimiter(), StandardCharsets.UTF_8));
    }
    if (p.startAfter() != null) {
      sb.append("&start-after=").append(URLEncoder.encode(p.startAfter(), StandardCharsets.UTF_8));
    }
    return sb.toString();
  }
}
