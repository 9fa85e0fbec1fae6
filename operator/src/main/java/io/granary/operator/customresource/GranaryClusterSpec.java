package io.granary.operator.customresource;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the user asks for. Plain Jackson data holders with public fields, as the CRD generator reads them: one line
 * per field, the schema's validation on the field itself.
 */
public class GranaryClusterSpec {
  @Required
  @JsonPropertyDescription("Container image that runs every role (granary proxy|target), e.g. ghcr.io/org/granary:0.1.0.")
  public String image;

  @JsonPropertyDescription("Image pull policy (Always, IfNotPresent, Never); default: Kubernetes' own.")
  public String imagePullPolicy;

  @JsonPropertyDescription("Secrets the kubelet pulls the image with (a private registry), as in a pod spec: "
      + "[{name: regcred}].")
  public List<LocalObjectReference> imagePullSecrets = new ArrayList<>();

  @JsonPropertyDescription("The proxies: the S3 and native API front door, holders of the cluster map.")
  public ProxySpec proxy = new ProxySpec();

  @Required
  @JsonPropertyDescription("The targets: storage nodes with their mountpaths.")
  public TargetSpec target = new TargetSpec();

  @JsonPropertyDescription("Secret with keys access-key and secret-key: the S3 key pair clients sign with. Absent: "
      + "the proxies accept only what they accept without keys.")
  public String authSecret;

  @JsonPropertyDescription("Secrets with credentials for remote buckets (e.g. AWS_ACCESS_KEY_ID, "
      + "GOOGLE_APPLICATION_CREDENTIALS); each is given whole to the targets as environment variables.")
  public List<String> backendSecrets = new ArrayList<>();

  @JsonPropertyDescription("Node settings, name to value (e.g. rebalance-bandwidth: 64MiB), written to the config "
      + "file every node reads.")
  public Map<String, String> config = new LinkedHashMap<>();

  @JsonPropertyDescription("The Service clients reach the S3 and native API through.")
  public S3ServiceSpec s3Service = new S3ServiceSpec();

  @JsonPropertyDescription("Delete the targets' PersistentVolumeClaims (their data) with the cluster. Default false: "
      + "they are kept, and a cluster created again under the same name finds its data.")
  public boolean deleteVolumes;
}
