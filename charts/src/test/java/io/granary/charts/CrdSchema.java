package io.granary.charts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialect;
import com.networknt.schema.dialect.Dialects;
import com.networknt.schema.keyword.NonValidationKeyword;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The GranaryCluster CRD's openAPIV3Schema for {@code spec}, as a JSON-schema validator.
 *
 * <p>The API server prunes fields a structural schema does not declare, so a misspelt key in the chart would be
 * dropped without a word. The validator is stricter on purpose: every object that lists its properties and does
 * not say x-kubernetes-preserve-unknown-fields gets {@code additionalProperties: false}, so such a key fails the
 * test instead. x-kubernetes-validations (CEL) rules are not evaluated here; the chart's values.schema.json
 * repeats them for values.
 */
final class CrdSchema {
  static final String FILE = "helm/granary-operator/crds/granaryclusters.granary.io-v1.yml";

  private static final List<String> KUBERNETES_KEYWORDS = List.of("x-kubernetes-preserve-unknown-fields",
      "x-kubernetes-int-or-string", "x-kubernetes-validations", "x-kubernetes-list-type", "x-kubernetes-list-map-keys",
      "x-kubernetes-map-type", "x-kubernetes-embedded-resource");

  private final JsonNode crd;
  private final Schema spec;

  private CrdSchema(JsonNode crd) {
    this.crd = crd;
    JsonNode specSchema = version().at("/schema/openAPIV3Schema/properties/spec").deepCopy();
    if (specSchema.isMissingNode()) {
      throw new IllegalStateException(FILE + " has no openAPIV3Schema for spec");
    }
    close(specSchema);
    // OpenAPI 3.0 schemas are JSON Schema draft 4 with extensions (exclusiveMinimum is a boolean there too); the
    // x-kubernetes-* keywords are the API server's, known here so they are not reported as unknown.
    Dialect openApi = Dialect.builder(Dialects.getDraft4())
        .keywords(KUBERNETES_KEYWORDS.stream().map(NonValidationKeyword::new).toList())
        .build();
    this.spec = SchemaRegistry.withDefaultDialect(openApi).getSchema(specSchema);
  }

  static CrdSchema load() {
    return load(Repo.path(FILE));
  }

  static CrdSchema load(Path file) {
    try {
      return new CrdSchema(new YAMLMapper().readTree(file.toFile()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  JsonNode crd() {
    return crd;
  }

  /** The one served version (v1alpha1). */
  JsonNode version() {
    return crd.at("/spec/versions/0");
  }

  /** Each violation of the spec schema as "location: message"; empty when the spec is valid. */
  List<String> validateSpec(JsonNode specOfResource) {
    return spec.validate(specOfResource).stream().map(Object::toString).toList();
  }

  private static void close(JsonNode schema) {
    if (!(schema instanceof ObjectNode node)) {
      return;
    }
    if (node.has("properties") && !node.has("additionalProperties")
        && !node.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)) {
      node.put("additionalProperties", false);
    }
    node.path("properties").forEach(CrdSchema::close);
    close(node.path("items"));
    close(node.path("additionalProperties"));
    for (String combinator : List.of("anyOf", "allOf", "oneOf")) {
      node.path(combinator).forEach(CrdSchema::close);
    }
  }
}
