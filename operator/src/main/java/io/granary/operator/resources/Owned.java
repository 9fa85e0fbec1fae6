package io.granary.operator.resources;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.granary.operator.customresource.GranaryCluster;
import java.util.Map;

/** Metadata of an owned object: name, namespace, labels, and the controller owner reference to the cluster. */
final class Owned {
  private Owned() {
  }

  static ObjectMeta meta(GranaryCluster c, String name, Map<String, String> labels) {
    return new ObjectMetaBuilder()
        .withName(name)
        .withNamespace(c.getMetadata().getNamespace())
        .withLabels(labels)
        .withOwnerReferences(new OwnerReferenceBuilder()
            .withApiVersion(c.getApiVersion())
            .withKind(c.getKind())
            .withName(c.getMetadata().getName())
            .withUid(c.getMetadata().getUid())
            .withController(true)
            .withBlockOwnerDeletion(true)
            .build())
        .build();
  }
}
