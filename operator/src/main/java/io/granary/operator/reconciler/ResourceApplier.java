package io.granary.operator.reconciler;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes desired objects with create and update (no server-side apply, so the same code runs against fabric8's
 * mock server). An object is updated only when the desired state changed: its hash rides in an annotation, since
 * comparing with the live object would see every default the API server fills in as a change.
 */
final class ResourceApplier {
  static final String HASH = "granary.io/desired-hash";
  private static final Logger log = LoggerFactory.getLogger(ResourceApplier.class);

  private final KubernetesClient client;

  ResourceApplier(KubernetesClient client) {
    this.client = client;
  }

  /** Creates {@code desired}, or updates the live object when the desired state differs from what was applied. */
  <T extends HasMetadata> T apply(T desired) {
    String hash = hash(desired);
    Map<String, String> annotations = new HashMap<>(desired.getMetadata().getAnnotations() == null ? Map.of()
        : desired.getMetadata().getAnnotations());
    annotations.put(HASH, hash);
    desired.getMetadata().setAnnotations(annotations);
    T live = client.resource(desired).get();
    if (live == null) {
      log.info("event=created kind={} name={}/{}", desired.getKind(), desired.getMetadata().getNamespace(),
          desired.getMetadata().getName());
      return client.resource(desired).create();
    }
    Map<String, String> liveAnnotations = live.getMetadata().getAnnotations();
    if (liveAnnotations != null && hash.equals(liveAnnotations.get(HASH))) {
      return live;
    }
    desired.getMetadata().setResourceVersion(live.getMetadata().getResourceVersion());
    log.info("event=updated kind={} name={}/{}", desired.getKind(), desired.getMetadata().getNamespace(),
        desired.getMetadata().getName());
    return client.resource(desired).update();
  }

  /** Creates {@code desired} unless an object of its name exists; never changes an existing one. */
  <T extends HasMetadata> void createIfAbsent(T desired) {
    if (client.resource(desired).get() == null) {
      client.resource(desired).create();
      log.info("event=created kind={} name={}/{}", desired.getKind(), desired.getMetadata().getNamespace(),
          desired.getMetadata().getName());
    }
  }

  private String hash(HasMetadata desired) {
    try {
      byte[] json = client.getKubernetesSerialization().asJson(desired).getBytes(StandardCharsets.UTF_8);
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(json), 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
