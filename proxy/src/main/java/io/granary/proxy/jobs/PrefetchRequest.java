package io.granary.proxy.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.InvalidNameException;
import io.granary.clustermap.bucket.ObjectName;
import io.granary.common.api.ObjectAddress;
import io.granary.common.jobs.NameTemplate;
import io.granary.common.error.BadRequestException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * A validated {@code POST /v1/jobs} body for a prefetch job (docs/jobs.md). Exactly one of names, prefix or
 * template is set. A template is parsed here ({@link NameTemplate}, the parser the targets expand it with), so a bad
 * one is refused before any target is asked.
 */
record PrefetchRequest(Bucket bucket, List<String> names, String prefix, String template, boolean latest,
    int concurrency) {
  /** Must match the targets' {@code TargetJobs.MAX_CONCURRENCY}. */
  static final int MAX_CONCURRENCY = 64;
  private static final Set<String> FIELDS = Set.of("kind", "bucket", "names", "prefix", "template", "latest",
      "concurrency");

  /** Parses and checks a request body; every problem is a 400 that says what to fix. */
  static PrefetchRequest parse(JsonNode body) {
    if (body == null || !body.isObject()) {
      throw new BadRequestException(BadRequestException.MALFORMED_JSON,
          "the body must be a JSON object such as {\"kind\":\"prefetch\",\"bucket\":\"s3://b\",\"prefix\":\"p/\"}");
    }
    for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!FIELDS.contains(f)) {
        throw bad("unknown field '" + f + "'; known: kind, bucket, names, prefix, template, latest, concurrency");
      }
    }
    String kind = text(body, "kind");
    if (kind == null) {
      throw bad("kind is required; the only kind is \"prefetch\"");
    }
    if (!kind.equals("prefetch")) {
      throw bad("unknown job kind '" + kind + "'; the only kind is \"prefetch\"");
    }
    String b = text(body, "bucket");
    if (b == null || b.isEmpty()) {
      throw bad("bucket is required, e.g. \"s3://my-bucket\"");
    }
    Bucket bucket = ObjectAddress.bucket(b, null);
    List<String> names = names(body.get("names"));
    String prefix = text(body, "prefix");
    String template = text(body, "template");
    int given = (names != null ? 1 : 0) + (prefix != null ? 1 : 0) + (template != null ? 1 : 0);
    if (given == 0) {
      throw bad("say what to prefetch: one of names, prefix (\"\" for the whole bucket) or template");
    }
    if (given > 1) {
      throw bad("give only one of names, prefix or template");
    }
    if (template != null && template.isEmpty()) {
      throw bad("template must not be empty; for the whole bucket use \"prefix\":\"\"");
    }
    if (template != null) {
      try {
        NameTemplate.parse(template);
      } catch (IllegalArgumentException e) {
        throw bad(e.getMessage());
      }
    }
    JsonNode l = body.get("latest");
    if (l != null && !l.isNull() && !l.isBoolean()) {
      throw bad("latest must be true or false");
    }
    int concurrency = 0;
    JsonNode c = body.get("concurrency");
    if (c != null && !c.isNull()) {
      if (!c.isIntegralNumber() || c.asLong() < 1 || c.asLong() > MAX_CONCURRENCY) {
        throw bad("concurrency must be an integer from 1 to " + MAX_CONCURRENCY + ", got " + c);
      }
      concurrency = c.asInt();
    }
    return new PrefetchRequest(bucket, names, prefix, template, l != null && l.asBoolean(), concurrency);
  }

  private static List<String> names(JsonNode n) {
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isArray() || n.isEmpty()) {
      throw bad("names must be a non-empty array of object names");
    }
    List<String> out = new ArrayList<>(n.size());
    for (JsonNode e : n) {
      if (!e.isTextual()) {
        throw bad("names must be strings, got " + e);
      }
      try {
        out.add(ObjectName.requireValid(e.asText()));
      } catch (InvalidNameException ex) {
        throw new BadRequestException(BadRequestException.INVALID_OBJECT_NAME, ex.getMessage());
      }
    }
    return List.copyOf(out);
  }

  private static String text(JsonNode body, String field) {
    JsonNode n = body.get(field);
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isTextual()) {
      throw bad(field + " must be a string, got " + n);
    }
    return n.asText();
  }

  private static BadRequestException bad(String message) {
    return BadRequestException.invalidArgument(message);
  }

  /** What a target gets for this request under job id {@code id}. */
  TargetJobSpec toTarget(String id, List<String> targets) {
    return new TargetJobSpec(id, bucket.toString(), names, prefix, template, latest, concurrency, targets);
  }
}
