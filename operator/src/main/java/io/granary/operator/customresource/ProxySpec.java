package io.granary.operator.customresource;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;

/** The proxies. Pod 0 is the first primary; the others join it. */
public class ProxySpec extends PodPlacement {
  @Min(1)
  @JsonPropertyDescription("Number of proxies, at least 1.")
  public int replicas = 1;

  @Min(1)
  @Max(65535)
  @JsonPropertyDescription("Port every proxy listens on (default 51080).")
  public int port = 51080;

  @Pattern(Mountpath.SIZE_PATTERN)
  @JsonPropertyDescription("Size of each proxy's volume for its node id and cluster metadata (default 1Gi).")
  public String dataSize = "1Gi";

  @JsonPropertyDescription("StorageClass of the proxies' volumes (default: the cluster's default class).")
  public String storageClass;
}
