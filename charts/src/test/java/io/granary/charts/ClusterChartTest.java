package io.granary.charts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** helm/granary-cluster: lint, render with each values file, and check the GranaryCluster against the CRD. */
class ClusterChartTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final CrdSchema CRD = CrdSchema.load();

  private static TemplateCommand template(String valuesFile) {
    TemplateCommand cmd = Charts.template(Charts.CLUSTER, "cache");
    return valuesFile.equals("values.yaml") ? cmd : cmd.withValuesFile(Charts.CLUSTER.resolve(valuesFile));
  }

  private static GenericKubernetesResource cluster(Rendered r) {
    List<Manifest> crs = r.kind("GranaryCluster");
    assertThat(crs).hasSize(1);
    return (GenericKubernetesResource) crs.get(0).object();
  }

  private static JsonNode spec(GenericKubernetesResource cr) {
    return JSON.valueToTree(cr.getAdditionalProperties().get("spec"));
  }

  @Test
  void lint_strict_passes() {
    var result = Charts.lintStrict(Charts.CLUSTER);
    assertThat(result.isFailed()).as("helm lint --strict: %s", result.getMessages()).isFalse();
  }

  @Test
  void templates_neverCallLookup() {
    Charts.assertNoLookup(Charts.CLUSTER);
  }

  @ParameterizedTest
  @ValueSource(strings = {"values.yaml", "values-gke.yaml", "values-oke.yaml"})
  void eachValuesFile_rendersAGranaryClusterTheCrdAccepts(String valuesFile) {
    Rendered r = Rendered.template(template(valuesFile));
    Charts.assertWellFormed(r);
    GenericKubernetesResource cr = cluster(r);
    assertThat(cr.getApiVersion()).isEqualTo(CRD.crd().at("/spec/group").asText() + "/"
        + CRD.version().path("name").asText());
    assertThat(cr.getKind()).isEqualTo(CRD.crd().at("/spec/names/kind").asText());
    assertThat(cr.getMetadata().getName()).isEqualTo("cache");
    assertThat(cr.getMetadata().getNamespace()).isEqualTo(Charts.NAMESPACE);
    assertThat(CRD.validateSpec(spec(cr))).as("%s against the CRD's schema", valuesFile).isEmpty();
  }

  @Test
  void gke_targetsClaimEveryLocalSsd_onTheTargetPool() {
    JsonNode spec = spec(cluster(Rendered.template(template("values-gke.yaml"))));
    JsonNode mountpaths = spec.at("/target/mountpaths");
    assertThat(mountpaths).hasSize(4).allSatisfy(m -> {
      assertThat(m.path("storageClass").asText()).isEqualTo("local-ssd");
      assertThat(m.path("size").asText()).isEqualTo("360Gi");
      assertThat(m.has("hostPath")).isFalse();
    });
    assertThat(spec.at("/target/nodeSelector/granary.io~1role").asText()).isEqualTo("target");
    assertThat(spec.at("/s3Service/type").asText()).isEqualTo("LoadBalancer");
    assertThat(spec.at("/s3Service/annotations/networking.gke.io~1load-balancer-type").asText()).isEqualTo("Internal");
  }

  @Test
  void oke_targetsUseTheNvmeHostPaths_oneTargetPerNode() {
    JsonNode spec = spec(cluster(Rendered.template(template("values-oke.yaml"))));
    assertThat(spec.at("/target/mountpaths")).extracting(m -> m.path("hostPath").asText())
        .containsExactly("/mnt/nvme0", "/mnt/nvme1");
    assertThat(spec.at("/target/mountpaths")).allSatisfy(m -> assertThat(m.has("size")).isFalse());
    assertThat(spec.at("/target/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/0/topologyKey")
        .asText()).isEqualTo("kubernetes.io/hostname");
    assertThat(spec.at("/backendSecrets/0").asText()).isEqualTo("oci-s3-key");
  }

  @Test
  void config_valuesReachTheResourceAsStrings() {
    JsonNode spec = spec(cluster(Rendered.template(template("values.yaml")
        .set("config.rebalance-streams", "32").set("config.rebalance-bandwidth", "1GiB"))));
    assertThat(spec.path("config").get("rebalance-streams").isTextual()).isTrue();
    assertThat(spec.path("config").get("rebalance-streams").asText()).isEqualTo("32");
    assertThat(spec.path("config").get("rebalance-bandwidth").asText()).isEqualTo("1GiB");
  }

  @Test
  void monitoring_isOffByDefault_andRendersServiceMonitorAndDashboardWhenOn() {
    assertThat(Rendered.template(template("values.yaml")).all()).extracting(Manifest::kind)
        .containsExactly("GranaryCluster");

    Rendered r = Rendered.template(template("values-gke.yaml"));
    Charts.assertWellFormed(r);
    GenericKubernetesResource monitor = (GenericKubernetesResource) r.kind("ServiceMonitor").get(0).object();
    JsonNode spec = JSON.valueToTree(monitor.getAdditionalProperties().get("spec"));
    assertThat(spec.at("/selector/matchLabels/app.kubernetes.io~1instance").asText()).isEqualTo("cache");
    assertThat(spec.at("/endpoints/0/port").asText()).isEqualTo("http");
    assertThat(spec.at("/endpoints/0/path").asText()).isEqualTo("/metrics");
    // The client Service cache-s3 selects the proxies too: scraping it as well would count every proxy twice.
    assertThat(spec.at("/endpoints/0/relabelings")).anySatisfy(rule -> {
      assertThat(rule.path("action").asText()).isEqualTo("drop");
      assertThat(rule.path("regex").asText()).isEqualTo("cache-s3");
    });
    assertThat(monitor.getMetadata().getLabels()).containsEntry("release", "kube-prometheus-stack");
  }

  @Test
  void dashboard_isTheRepositorysDashboard_boundToTheDataSource() throws Exception {
    String original = Repo.read("deploy/grafana/granary-dashboard.json");
    assertThat(Charts.read(Charts.CLUSTER.resolve("files/granary-dashboard.json")))
        .as("helm/granary-cluster/files/granary-dashboard.json is a copy of deploy/grafana/granary-dashboard.json")
        .isEqualTo(original);

    ConfigMap cm = Rendered.template(template("values.yaml").set("monitoring.grafanaDashboard.enabled", "true")
        .set("monitoring.grafanaDashboard.datasourceUid", "prom-main")).one(ConfigMap.class);
    assertThat(cm.getMetadata().getLabels()).containsEntry("grafana_dashboard", "1");
    String rendered = cm.getData().get("granary-dashboard.json");
    assertThat(rendered).doesNotContain("${DS_PROMETHEUS}");
    assertThat(JSON.readTree(rendered)).isEqualTo(JSON.readTree(original.replace("${DS_PROMETHEUS}", "prom-main")));
  }

  @Test
  void badValues_areRefusedByTheChart_withTheKeyNamed() {
    assertRefused(template("values.yaml").set("target.replicas", "0"), "replicas");
    assertRefused(template("values.yaml").set("proxy.replicas", "-1"), "replicas");
    assertRefused(template("values.yaml").set("target.mountpaths[0].size", "ten"), "size");
    assertRefused(template("values-oke.yaml").set("target.mountpaths[0].size", "100Gi"), "mountpaths");
    assertRefused(template("values.yaml").set("targets.replicas", "3"), "targets");
    assertRefused(template("values.yaml").set("s3Service.type", "Ingress"), "type");
  }

  @Test
  void imagePullSecrets_reachTheResource_validAgainstTheCrd() {
    JsonNode spec = spec(cluster(Rendered.template(template("values.yaml").set("imagePullSecrets[0].name", "regcred"))));
    assertThat(spec.at("/imagePullSecrets/0/name").asText()).isEqualTo("regcred");
    assertThat(CRD.validateSpec((ObjectNode) spec)).isEmpty();
    assertThat(spec(cluster(Rendered.template(template("values.yaml")))).has("imagePullSecrets")).isFalse();
  }

  @Test
  void badSpecs_areRefusedByTheCrdSchema() {
    ObjectNode good = (ObjectNode) spec(cluster(Rendered.template(template("values-gke.yaml"))));
    assertThat(CRD.validateSpec(good)).isEmpty();

    assertThat(CRD.validateSpec(with(good, "/target", "replicas", JSON.valueToTree(0))))
        .anySatisfy(e -> assertThat(e).contains("replicas"));
    assertThat(CRD.validateSpec(with(good, "/proxy", "replicas", JSON.valueToTree(-2))))
        .anySatisfy(e -> assertThat(e).contains("replicas"));
    assertThat(CRD.validateSpec(with(good, "/target/mountpaths/0", "size", JSON.valueToTree("1.5 TB"))))
        .anySatisfy(e -> assertThat(e).contains("size"));
    assertThat(CRD.validateSpec(with(good, "/target/mountpaths/0", "storageClas", JSON.valueToTree("x"))))
        .anySatisfy(e -> assertThat(e).contains("storageClas"));
    assertThat(CRD.validateSpec(with(good, "/target", "mountpaths", JSON.createArrayNode())))
        .anySatisfy(e -> assertThat(e).contains("mountpaths"));
    ObjectNode noImage = good.deepCopy();
    noImage.remove("image");
    assertThat(CRD.validateSpec(noImage)).anySatisfy(e -> assertThat(e).contains("image"));
  }

  private static ObjectNode with(ObjectNode spec, String at, String field, JsonNode value) {
    ObjectNode copy = spec.deepCopy();
    ((ObjectNode) copy.at(at)).set(field, value);
    return copy;
  }

  private static void assertRefused(TemplateCommand cmd, String key) {
    Throwable t = catchThrowable(cmd::call);
    assertThat(t).as("helm template refuses the values").isNotNull();
    assertThat(t.getMessage()).contains(key);
  }
}
