package io.granary.operator.customresource;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * One disk of every target: a PersistentVolumeClaim per pod ({@code size}, optional {@code storageClass}), or a
 * directory of the Kubernetes node ({@code hostPath}, e.g. a local NVMe drive). Exactly one of the two.
 */
@ValidationRule(value = "has(self.size) != has(self.hostPath)",
    message = "give exactly one of size (a volume per pod) and hostPath (a directory of the node)")
@ValidationRule(value = "!has(self.storageClass) || has(self.size)",
    message = "storageClass applies to volumes (size), not to hostPath")
public class Mountpath {
  /** A Kubernetes quantity of bytes: digits, an optional fraction, a binary or decimal suffix. */
  public static final String SIZE_PATTERN = "^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$";
  /** A name Kubernetes accepts as a volume name and we accept as a mount directory under /mnt. */
  public static final String NAME_PATTERN = "^[a-z0-9]([-a-z0-9]{0,30}[a-z0-9])?$";

  @Required
  @Pattern(NAME_PATTERN)
  @JsonPropertyDescription("Short name (DNS label, at most 32 characters): the volume name and /mnt/NAME in the pod.")
  public String name;

  @Pattern(SIZE_PATTERN)
  @JsonPropertyDescription("Size of the volume each target gets for this mountpath, e.g. 500Gi.")
  public String size;

  @JsonPropertyDescription("StorageClass of the volume (default: the cluster's default class).")
  public String storageClass;

  @Pattern("^/.*")
  @JsonPropertyDescription("Absolute directory on the Kubernetes node instead of a volume, e.g. /mnt/nvme0.")
  public String hostPath;
}
