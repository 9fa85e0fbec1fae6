package io.granary.operator.customresource;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import java.util.LinkedHashMap;
import java.util.Map;

/** The client Service in front of the proxies (S3 and native API). */
public class S3ServiceSpec {
  @Pattern("^(ClusterIP|NodePort|LoadBalancer)$")
  @JsonPropertyDescription("Service type: ClusterIP (default), NodePort or LoadBalancer.")
  public String type = "ClusterIP";

  @Min(1)
  @Max(65535)
  @JsonPropertyDescription("Port of the Service (default 80); it forwards to the proxies' port.")
  public int port = 80;

  @JsonPropertyDescription("Annotations of the Service, e.g. for a cloud load balancer.")
  public Map<String, String> annotations = new LinkedHashMap<>();
}
