package io.granary.operator.customresource;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What proxies and targets share: how many, how big, and on which nodes. */
public abstract class PodPlacement {
  @JsonPropertyDescription("CPU and memory requests and limits of each pod.")
  public ResourceRequirements resources;

  @JsonPropertyDescription("Kubernetes node labels the pods must run on.")
  public Map<String, String> nodeSelector = new LinkedHashMap<>();

  @JsonPropertyDescription("Taints the pods tolerate.")
  public List<Toleration> tolerations = new ArrayList<>();

  @JsonPropertyDescription("Pod affinity and anti-affinity.")
  public Affinity affinity;
}
