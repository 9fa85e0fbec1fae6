package io.granary.operator.customresource;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import java.util.ArrayList;
import java.util.List;

/** The targets. Scaling down decommissions the highest-numbered ones first, through the cluster API. */
public class TargetSpec extends PodPlacement {
  @Min(1)
  @JsonPropertyDescription("Number of targets, at least 1. Lowering it decommissions targets before their pods go.")
  public int replicas = 1;

  @Min(1)
  @Max(65535)
  @JsonPropertyDescription("Port every target listens on (default 51081).")
  public int port = 51081;

  @Required
  @Size(min = 1)
  @JsonPropertyDescription("The disks of each target: one mountpath per disk.")
  public List<Mountpath> mountpaths = new ArrayList<>();

  @Min(0)
  @JsonPropertyDescription("Targets that may be down at once for voluntary disruptions (PodDisruptionBudget; "
      + "default 1).")
  public int maxUnavailable = 1;
}
