package io.granary.charts;

import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/** The two charts under helm/ and the checks every rendering of them must pass. */
final class Charts {
  static final Path OPERATOR = Repo.path("helm/granary-operator");
  static final Path CLUSTER = Repo.path("helm/granary-cluster");
  static final String NAMESPACE = "granary";
  /** The Kubernetes version charts are rendered for (helm template assumes 1.20 otherwise; the charts need 1.27+). */
  static final String KUBE_VERSION = "1.31.0";

  /** API groups of custom resources the charts may render; anything else must be a kind fabric8 knows. */
  private static final Set<String> CUSTOM_GROUPS = Set.of("granary.io", "monitoring.coreos.com");

  private Charts() {
  }

  /** helm template for this release name in NAMESPACE, for KUBE_VERSION. */
  static TemplateCommand template(Path chart, String release) {
    return new Helm(chart).template().withKubeVersion(KUBE_VERSION).withName(release).withNamespace(NAMESPACE);
  }

  static LintResult lintStrict(Path chart) {
    return new Helm(chart).lint().strict().call();
  }

  /** Kinds are known, no field is unknown to the model, and every object has a name. */
  static void assertWellFormed(Rendered rendered) {
    assertThat(rendered.all()).isNotEmpty();
    for (Manifest m : rendered.all()) {
      assertThat(m.name()).as("name of %s", m).isNotBlank();
      if (m.object() instanceof GenericKubernetesResource generic) {
        String group = generic.getApiVersion().contains("/") ? generic.getApiVersion().split("/")[0] : "";
        assertThat(CUSTOM_GROUPS).as("%s: an apiVersion/kind fabric8 does not know (%s)", m, generic.getApiVersion())
            .contains(group);
      }
      assertThat(UnknownFields.of(m.object())).as("fields the Kubernetes model does not know in %s", m).isEmpty();
    }
  }

  /** No template of the chart calls lookup: helm template (and helm-java) would query an API server for it. */
  static void assertNoLookup(Path chart) {
    try (Stream<Path> files = Files.walk(chart.resolve("templates"))) {
      List<Path> offenders = files.filter(Files::isRegularFile).filter(f -> read(f).contains("lookup")).toList();
      assertThat(offenders).as("templates that call lookup").isEmpty();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
