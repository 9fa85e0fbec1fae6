package io.granary.operator.reconciler;

import io.granary.operator.customresource.GranaryClusterSpec;
import io.granary.operator.customresource.Mountpath;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The spec checks the CRD schema makes too, made again: an API server without the schema (an old CRD, the mock
 * server in tests) must not let a bad spec reach a StatefulSet, and some checks (unique names, config keys) the
 * schema cannot express. A bad spec becomes a status condition, never an exception.
 */
public final class SpecCheck {
  private static final Pattern SIZE = Pattern.compile(Mountpath.SIZE_PATTERN);
  private static final Pattern NAME = Pattern.compile(Mountpath.NAME_PATTERN);
  /** A config name: flag-like words, so it can neither break the file's lines nor smuggle in another setting. */
  private static final Pattern CONFIG_KEY = Pattern.compile("^[a-z][a-z0-9]*([.-][a-z0-9]+)*$");
  private static final Set<String> SERVICE_TYPES = Set.of("ClusterIP", "NodePort", "LoadBalancer");

  private SpecCheck() {
  }

  /** Every problem of {@code spec}, one sentence each; empty when it is good. */
  public static List<String> problems(GranaryClusterSpec spec) {
    List<String> p = new ArrayList<>();
    if (spec == null) {
      return List.of("spec is missing");
    }
    if (spec.image == null || spec.image.isBlank()) {
      p.add("spec.image is required");
    }
    if (spec.proxy == null || spec.target == null || spec.config == null || spec.s3Service == null) {
      return List.of("spec has null sections; SpecDefaults.fill first"); // a programming error, said plainly
    }
    if (spec.proxy.replicas < 1) {
      p.add("spec.proxy.replicas must be at least 1");
    } else if (spec.proxy.dataSize == null || !SIZE.matcher(spec.proxy.dataSize).matches()) {
      p.add("spec.proxy.dataSize '" + spec.proxy.dataSize + "' is not a size such as 1Gi");
    }
    if (spec.target.replicas < 1) {
      p.add("spec.target.replicas must be at least 1");
    }
    mountpaths(spec.target.mountpaths, p);
    if (spec.target.maxUnavailable < 0) {
      p.add("spec.target.maxUnavailable must not be negative");
    }
    if (spec.proxy.port == spec.target.port) {
      p.add("spec.proxy.port and spec.target.port must differ");
    }
    if (!SERVICE_TYPES.contains(spec.s3Service.type)) {
      p.add("spec.s3Service.type '" + spec.s3Service.type + "' is not one of ClusterIP, NodePort, LoadBalancer");
    }
    spec.config.forEach((k, v) -> {
      if (!CONFIG_KEY.matcher(k).matches()) {
        p.add("spec.config key '" + k + "' is not a setting name (lower-case words joined by '-' or '.')");
      } else if (v == null || v.indexOf('\n') >= 0 || v.indexOf('\r') >= 0) {
        p.add("spec.config." + k + " must be a single line");
      }
    });
    return p;
  }

  private static void mountpaths(List<Mountpath> mountpaths, List<String> p) {
    if (mountpaths == null || mountpaths.isEmpty()) {
      p.add("spec.target.mountpaths needs at least one mountpath");
      return;
    }
    Set<String> names = new HashSet<>();
    for (Mountpath m : mountpaths) {
      String where = "spec.target.mountpaths[" + m.name + "]";
      if (m.name == null || !NAME.matcher(m.name).matches()) {
        p.add(where + ": name must be a DNS label of at most 32 characters");
      } else if (!names.add(m.name)) {
        p.add(where + ": name used twice");
      }
      if ((m.size == null) == (m.hostPath == null)) {
        p.add(where + ": give exactly one of size and hostPath");
      }
      if (m.size != null && !SIZE.matcher(m.size).matches()) {
        p.add(where + ": size '" + m.size + "' is not a size such as 500Gi");
      }
      if (m.hostPath != null && !m.hostPath.startsWith("/")) {
        p.add(where + ": hostPath must be absolute");
      }
      if (m.storageClass != null && m.size == null) {
        p.add(where + ": storageClass applies to volumes (size), not to hostPath");
      }
    }
  }
}
