package io.granary.proxy.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.Node;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.Protection;
import io.granary.common.api.ApiPaths;
import io.granary.common.api.ListParams;
import io.granary.common.control.ControlClient;
import io.granary.common.error.BadRequestException;
import io.granary.common.error.ConflictException;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.proxy.listing.ListingMerger;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Whether the cluster can hold a bucket's protection, asked before it is recorded (docs/protection.md): mirror
 * copies need as many available mountpaths on every target (asked of each target, since the cluster map does not
 * know disks), erasure coding needs D+P+1 targets, and D and P cannot change once the bucket holds objects (for a
 * remote bucket: cached ones, listed from the targets, since slices are cut of what the cluster stores). Fails
 * with 400 for a setting the cluster cannot hold, 409 for a change the bucket's data forbids, 503 when a target
 * that must be asked does not answer. Runs on the caller's thread up to the first request, then on the client's.
 */
final class ProtectionCheck {
  private final ClusterMetadataHolder cluster;
  private final ControlClient client;
  private final ListingMerger lister;

  ProtectionCheck(ClusterMetadataHolder cluster, ControlClient client, ListingMerger lister) {
    this.cluster = cluster;
    this.client = client;
    this.lister = lister;
  }

  /**
   * Checks {@code next} for a bucket whose properties are {@code current} (for a new bucket: its properties with
   * {@code next} already in, and {@code isNew} true, since a new bucket holds nothing).
   */
  CompletableFuture<Void> check(BucketProps current, Protection next, boolean isNew) {
    List<Node> targets = cluster.require().placement().holders();
    return minMountpaths(targets, next.mirrorCopies()).thenCompose(mountpaths -> {
      try {
        next.checkFits(targets.size(), mountpaths);
      } catch (IllegalArgumentException e) {
        throw BadRequestException.invalidArgument(e.getMessage());
      }
      Protection was = current.protection();
      if (isNew || (was.ecData() == next.ecData() && was.ecParity() == next.ecParity())) {
        return CompletableFuture.completedFuture(null);
      }
      return lister.list(targets, current, new ListParams("", null, 1)).thenAccept(page -> {
        String why = next.refusedChangeFrom(was, !page.entries().isEmpty());
        if (why != null) {
          throw new ConflictException(ConflictException.PROPERTY_FIXED, why);
        }
      });
    });
  }

  /**
   * The fewest available mountpaths of any target; not asked (and {@code copies} returned) for one copy, which
   * every target holds by having a mountpath at all.
   */
  private CompletableFuture<Integer> minMountpaths(List<Node> targets, int copies) {
    if (copies <= 1) {
      return CompletableFuture.completedFuture(copies);
    }
    List<CompletableFuture<Integer>> counts = new ArrayList<>();
    for (Node t : targets) {
      counts.add(client.get(t.url() + ApiPaths.MOUNTPATHS, JsonNode.class).handle((report, err) -> {
        if (err != null) {
          throw new ServiceUnavailableException(ServiceUnavailableException.TARGET_OFFLINE, "target " + t.id()
              + " did not say how many mountpaths it has: " + ControlClient.cause(err).getMessage(), 5);
        }
        int n = 0;
        for (JsonNode mp : report.path("mountpaths")) {
          n += "available".equals(mp.path("state").asText()) ? 1 : 0;
        }
        return n;
      }));
    }
    return CompletableFuture.allOf(counts.toArray(CompletableFuture[]::new))
        .thenApply(v -> counts.stream().mapToInt(CompletableFuture::join).min().orElse(0));
  }
}
