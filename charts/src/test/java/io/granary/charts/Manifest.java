package io.granary.charts;

import io.fabric8.kubernetes.api.model.HasMetadata;

/** One object of a rendered chart and the template it came from ("# Source:" in helm template's output). */
record Manifest(String source, HasMetadata object) {

  String kind() {
    return object.getKind();
  }

  String name() {
    return object.getMetadata().getName();
  }

  @Override
  public String toString() {
    return kind() + "/" + name() + " (" + source + ")";
  }
}
