package io.granary.operator.resources;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.granary.operator.customresource.GranaryCluster;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * The config file every node reads ({@code GRANARY_CONFIG}): the spec's {@code config} overrides as
 * {@code name=value} lines, sorted so the same overrides always give the same file (and the same pod hash).
 */
public final class NodeConfigMap {
  static final String FILE = "granary.properties";

  private NodeConfigMap() {
  }

  public static ConfigMap desired(GranaryCluster c) {
    return new ConfigMapBuilder()
        .withMetadata(Owned.meta(c, Names.configMap(c), Labels.of(c)))
        .withData(Map.of(FILE, file(c)))
        .build();
  }

  static String file(GranaryCluster c) {
    StringBuilder sb = new StringBuilder("# Written by the granary operator from spec.config; edits here are undone.\n");
    new TreeMap<>(c.getSpec().config).forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
    return sb.toString();
  }

  /** SHA-256 of the file, hex: the pod template carries it so a config change rolls the pods. */
  static String hash(GranaryCluster c) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(file(c).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
