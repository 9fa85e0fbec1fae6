package io.granary.proxy.rebalance;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.common.control.ControlClient;
import io.granary.common.rebalance.RebalanceProgress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * Asks targets for their rebalance progress ({@code GET /v1/rebalance}), all at once, without blocking. A target
 * that cannot answer now (offline, suspended, unreachable) has a problem instead of a progress.
 */
final class TargetProgress {
  static final String PATH = "/v1/rebalance";

  private final ControlClient client;

  TargetProgress(ControlClient client) {
    this.client = client;
  }

  /** One target's answer: its progress, or why there is none. */
  record Answer(Node target, RebalanceProgress progress, String problem) {
  }

  /** Every target of {@code map}, by id. */
  CompletableFuture<Map<String, Answer>> ask(ClusterMap map) {
    return ask(List.copyOf(map.targets().values()));
  }

  CompletableFuture<Map<String, Answer>> ask(List<Node> targets) {
    Map<String, Answer> out = Collections.synchronizedMap(new TreeMap<>());
    List<CompletableFuture<Void>> calls = new ArrayList<>();
    for (Node t : targets) {
      if (!t.state().serving()) {
        out.put(t.id(), new Answer(t, null, "target " + t.id() + " is " + t.state().wireName()));
        continue;
      }
      calls.add(client.get(t.url() + PATH, RebalanceProgress.class).handle((p, err) -> {
        out.put(t.id(), err == null ? new Answer(t, p, null)
            : new Answer(t, null, "target " + t.id() + " did not answer: " + ControlClient.cause(err)));
        return null;
      }));
    }
    return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).thenApply(v -> out);
  }
}
