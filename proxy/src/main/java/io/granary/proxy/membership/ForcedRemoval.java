package io.granary.proxy.membership;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import io.granary.clustermap.Node;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.membership.ClusterMetadata;
import java.util.List;

/**
 * What removing a dead target by force did: the answer of {@code DELETE /v1/cluster/nodes/ID?force=true}. The
 * target's disks are gone, so nothing can say which objects it held; what it held of local buckets is lost (it was
 * their only copy), what it held of remote buckets is fetched again from the remote store on first read.
 *
 * @param removed the target's id, now retired: it may not join again under it
 * @param state its state when it was removed
 * @param mapVersion the map version without it
 * @param rebalance the rebalance among the survivors that version started ({@code rb-N})
 * @param localBuckets local buckets: their objects that were on it are lost
 * @param remoteBuckets remote buckets: their objects that were cached on it are fetched again cold on demand
 * @param lost what is lost, in one sentence
 * @param refetched what comes back by itself, in one sentence
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record ForcedRemoval(String removed, String state, long mapVersion, String rebalance,
    List<String> localBuckets, List<String> remoteBuckets, String lost, String refetched) {

  static ForcedRemoval of(Node removed, ClusterMetadata after) {
    List<String> local = after.buckets().buckets().values().stream().filter(b -> !b.isRemote())
        .map(b -> b.bucket().toString()).sorted().toList();
    List<String> remote = after.buckets().buckets().values().stream().filter(BucketProps::isRemote)
        .map(b -> b.bucket().toString()).sorted().toList();
    String id = removed.id();
    return new ForcedRemoval(id, removed.state().wireName(), after.map().version(),
        after.map().rebalance().jobId(), local, remote,
        local.isEmpty() ? "nothing: there are no local buckets"
            : "the objects of local buckets " + local + " that " + id + " held cannot be recovered (reads answer 404)",
        remote.isEmpty() ? "nothing: there are no remote buckets"
            : "the objects of remote buckets " + remote + " that " + id + " cached are fetched again from their "
                + "remote store on first read");
  }
}
