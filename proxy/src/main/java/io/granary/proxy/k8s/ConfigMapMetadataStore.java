package io.granary.proxy.k8s;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.bucket.BucketMetadata;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.membership.ClusterMetadata;
import io.granary.proxy.membership.MetadataJournal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster metadata kept in a ConfigMap ({@code <lease>-metadata}), so that whichever proxy wins the Lease
 * resumes from the last version. Writes use optimistic concurrency: each carries the resourceVersion this store
 * last read or wrote, so a write by a primary whose term ended (someone else wrote meanwhile) fails with 409 and is
 * refused here as {@code NotPrimary}. The ConfigMap also names the primary and its URL, so followers find it.
 *
 * <p>Blocking (a call to the API server): use off the event loop. One store per term, used by one authority.
 */
public final class ConfigMapMetadataStore implements MetadataJournal {
  private static final Logger log = LoggerFactory.getLogger(ConfigMapMetadataStore.class);
  static final String MAP = "cluster-map.json";
  static final String BUCKETS = "buckets.json";
  static final String PRIMARY_ID = "primary-id";
  static final String PRIMARY_URL = "primary-url";

  /** What the ConfigMap holds: the metadata, and who recorded it (the primary of {@code metadata}'s epoch). */
  public record Recorded(ClusterMetadata metadata, String primaryId, String primaryUrl, String resourceVersion) {
  }

  private final KubernetesClient client;
  private final String namespace;
  private final String name;
  private final String selfUrl;
  private final Runnable onConflict;
  private String resourceVersion; // guarded by this: of our last read or write; null while the ConfigMap is absent

  /**
   * @param selfUrl this proxy's URL, recorded with each write as the primary's
   * @param onConflict called when a write conflicts: another proxy recorded meanwhile, this one is deposed
   */
  public ConfigMapMetadataStore(KubernetesClient client, String namespace, String name, String selfUrl,
      Runnable onConflict) {
    this.client = client;
    this.namespace = namespace;
    this.name = name;
    this.selfUrl = selfUrl;
    this.onConflict = onConflict;
  }

  /** Reads the ConfigMap, remembering its resourceVersion for the next write; empty when it does not exist yet. */
  public synchronized Optional<Recorded> load() {
    Optional<Recorded> r = read(client, namespace, name);
    resourceVersion = r.map(Recorded::resourceVersion).orElse(null);
    return r;
  }

  /** Reads what the ConfigMap holds now (followers use it to find the primary); empty when it does not exist. */
  public static Optional<Recorded> read(KubernetesClient client, String namespace, String name) {
    ConfigMap cm = client.configMaps().inNamespace(namespace).withName(name).get();
    if (cm == null) {
      return Optional.empty();
    }
    Map<String, String> data = cm.getData() == null ? Map.of() : cm.getData();
    String rv = cm.getMetadata().getResourceVersion();
    if (data.get(MAP) == null || data.get(BUCKETS) == null) {
      // Created by someone else (say, a chart) without metadata yet: the first primary fills it in.
      return Optional.of(new Recorded(null, null, null, rv));
    }
    try {
      ClusterMap map = ClusterJson.mapper().readValue(data.get(MAP), ClusterMap.class);
      BucketMetadata buckets = ClusterJson.mapper().readValue(data.get(BUCKETS), BucketMetadata.class);
      return Optional.of(new Recorded(new ClusterMetadata(map, buckets), data.get(PRIMARY_ID), data.get(PRIMARY_URL),
          rv));
    } catch (IOException | IllegalArgumentException e) {
      // A hand-edited or corrupt record: no primary may resume from it, nor overwrite it unseen.
      throw new IllegalStateException("ConfigMap " + namespace + "/" + name + " holds unreadable cluster metadata: "
          + e.getMessage(), e);
    }
  }

  @Override
  public synchronized void record(ClusterMetadata md) {
    Map<String, String> data = new TreeMap<>();
    try {
      data.put(MAP, ClusterJson.mapper().writeValueAsString(md.map()));
      data.put(BUCKETS, ClusterJson.mapper().writeValueAsString(md.buckets()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    data.put(PRIMARY_ID, md.map().primary());
    data.put(PRIMARY_URL, selfUrl);
    ConfigMap cm = new ConfigMapBuilder().withNewMetadata().withName(name).withNamespace(namespace)
        .withResourceVersion(resourceVersion).addToLabels("app.kubernetes.io/component", "cluster-metadata")
        .endMetadata().withData(data).build();
    ConfigMap written;
    try {
      written = resourceVersion == null ? client.configMaps().inNamespace(namespace).resource(cm).create()
          : client.configMaps().inNamespace(namespace).resource(cm).update();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409) {
        log.warn("node={} ConfigMap {}/{} changed since resourceVersion {}: another proxy is primary; map v{} of "
            + "epoch {} not recorded", md.map().primary(), namespace, name, resourceVersion, md.map().version(),
            md.map().epoch());
        onConflict.run();
        throw new ServiceUnavailableException(ServiceUnavailableException.NOT_PRIMARY, "proxy " + md.map().primary()
            + " is no longer the primary: another proxy recorded newer cluster metadata; retry", 1);
      }
      throw new ServiceUnavailableException(ServiceUnavailableException.PRIMARY_UNREACHABLE,
          "cannot record cluster metadata in ConfigMap " + namespace + "/" + name + ": " + e.getMessage(), 2, e);
    }
    resourceVersion = written.getMetadata().getResourceVersion();
  }
}
