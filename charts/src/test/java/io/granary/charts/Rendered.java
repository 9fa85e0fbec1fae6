package io.granary.charts;

import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The objects of one {@code helm template} run, parsed into the fabric8 model: known kinds become their typed
 * classes, anything else a GenericKubernetesResource.
 */
final class Rendered {
  static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  private static final Pattern DOCUMENT_SEPARATOR = Pattern.compile("(?m)^---\\s*$");
  private static final Pattern SOURCE = Pattern.compile("(?m)^# Source: (.+)$");

  private final List<Manifest> manifests;

  private Rendered(List<Manifest> manifests) {
    this.manifests = List.copyOf(manifests);
  }

  static Rendered template(TemplateCommand command) {
    return parse(command.call());
  }

  static Rendered parse(String yaml) {
    List<Manifest> out = new ArrayList<>();
    for (String document : DOCUMENT_SEPARATOR.split(yaml)) {
      if (document.lines().allMatch(l -> l.isBlank() || l.stripLeading().startsWith("#"))) {
        continue;
      }
      Matcher source = SOURCE.matcher(document);
      Object parsed = SERIALIZATION.unmarshal(document);
      if (!(parsed instanceof HasMetadata object)) {
        throw new AssertionError("not a Kubernetes object: " + document);
      }
      out.add(new Manifest(source.find() ? source.group(1) : "?", object));
    }
    return new Rendered(out);
  }

  List<Manifest> all() {
    return manifests;
  }

  /** Every object of this class. */
  <T extends HasMetadata> List<T> of(Class<T> type) {
    return manifests.stream().map(Manifest::object).filter(type::isInstance).map(type::cast).toList();
  }

  /** The only object of this class; fails if there are none or several. */
  <T extends HasMetadata> T one(Class<T> type) {
    List<T> all = of(type);
    if (all.size() != 1) {
      throw new AssertionError("expected one " + type.getSimpleName() + ", got " + all.size() + ": " + manifests);
    }
    return all.get(0);
  }

  /** Objects of this kind (for kinds without a model class, such as our custom resource). */
  List<Manifest> kind(String kind) {
    return manifests.stream().filter(m -> kind.equals(m.kind())).toList();
  }
}
