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
 * The config file every node reads ({@code GRANARY_CONFIG}, docs/config.md): the spec's {@code config} overrides
 * as YAML, {@code name: "value"} at the top level for both roles, and under {@code proxy:} or {@code target:} for a
 * name given as {@code proxy.NAME} or {@code target.NAME}; sorted so the same overrides always give the same file
 * (and the same pod hash).
 */
public final class NodeConfigMap {
  static final String FILE = "granary.yaml";

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
    Map<String, Map<String, String>> sections = new TreeMap<>();
    new TreeMap<>(c.getSpec().config).forEach((k, v) -> {
      int dot = k.indexOf('.');
      String role = dot < 0 ? "" : k.substring(0, dot);
      sections.computeIfAbsent(role, r -> new TreeMap<>()).put(dot < 0 ? k : k.substring(dot + 1), v);
    });
    sections.getOrDefault("", Map.of()).forEach((k, v) -> sb.append(k).append(": ").append(quoted(v)).append('\n'));
    sections.forEach((role, settings) -> {
      if (!role.isEmpty()) {
        sb.append(role).append(":\n");
        settings.forEach((k, v) -> sb.append("  ").append(k).append(": ").append(quoted(v)).append('\n'));
      }
    });
    return sb.toString();
  }

  /** A YAML double-quoted scalar (JSON's string syntax is valid YAML): any value stays a string. */
  private static String quoted(String v) {
    StringBuilder q = new StringBuilder("\"");
    for (char ch : v.toCharArray()) {
      switch (ch) {
        case '"' -> q.append("\\\"");
        case '\\' -> q.append("\\\\");
        case '\n' -> q.append("\\n");
        default -> {
          if (ch < 0x20) {
            q.append(String.format("\\u%04x", (int) ch));
          } else {
            q.append(ch);
          }
        }
      }
    }
    return q.append('"').toString();
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
