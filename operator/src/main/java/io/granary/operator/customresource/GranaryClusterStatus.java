package io.granary.operator.customresource;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;

/** What the operator observed, written after every reconciliation. */
public class GranaryClusterStatus {
  @JsonPropertyDescription("Creating, Running, ScalingUp, ScalingDown, Upgrading, Invalid or Deleting.")
  public String phase;

  @JsonPropertyDescription("metadata.generation of the spec this status answers.")
  public Long observedGeneration;

  @JsonPropertyDescription("Proxy pods ready.")
  public int readyProxies;

  @JsonPropertyDescription("Target pods ready.")
  public int readyTargets;

  @JsonPropertyDescription("Target pods the target StatefulSet has now (lags spec while scaling down).")
  public int targets;

  @JsonPropertyDescription("Version of the cluster map, as the proxies serve it (0: not reachable yet).")
  public long mapVersion;

  @JsonPropertyDescription("State of the latest rebalance: running, finished or aborted (absent: none yet).")
  public String rebalance;

  @JsonPropertyDescription("URL of the S3 and native API inside the Kubernetes cluster.")
  public String endpoint;

  @JsonPropertyDescription("Conditions: SpecValid, ClusterReachable, Rebalanced, ScaleDownBlocked, Upgraded.")
  public List<Condition> conditions = new ArrayList<>();
}
