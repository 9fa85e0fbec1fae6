package io.granary.operator.reconciler;

import io.granary.operator.customresource.GranaryClusterSpec;
import io.granary.operator.customresource.ProxySpec;
import io.granary.operator.customresource.S3ServiceSpec;
import io.granary.operator.customresource.TargetSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;

/**
 * Puts the defaults back where a spec says {@code null} explicitly ({@code config: null}), so the builders never
 * meet a null section or list. Only the copy the reconciler holds changes; the spec is never written back.
 */
final class SpecDefaults {
  private SpecDefaults() {
  }

  static void fill(GranaryClusterSpec s) {
    if (s == null) {
      return;
    }
    if (s.proxy == null) {
      s.proxy = new ProxySpec();
    }
    if (s.target == null) {
      s.target = new TargetSpec();
    }
    if (s.s3Service == null) {
      s.s3Service = new S3ServiceSpec();
    }
    if (s.s3Service.annotations == null) {
      s.s3Service.annotations = new LinkedHashMap<>();
    }
    if (s.config == null) {
      s.config = new LinkedHashMap<>();
    }
    if (s.backendSecrets == null) {
      s.backendSecrets = new ArrayList<>();
    }
    if (s.target.mountpaths == null) {
      s.target.mountpaths = new ArrayList<>();
    }
    for (var p : java.util.List.of(s.proxy, s.target)) {
      if (p.nodeSelector == null) {
        p.nodeSelector = new LinkedHashMap<>();
      }
      if (p.tolerations == null) {
        p.tolerations = new ArrayList<>();
      }
    }
  }
}
