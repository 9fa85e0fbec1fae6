package io.granary.proxy.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.clustermap.bucket.Freshness;
import io.granary.clustermap.bucket.Protection;
import io.granary.clustermap.bucket.Provider;
import io.granary.clustermap.bucket.RemoteBackend;
import io.granary.common.error.BadRequestException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * The JSON body of {@code POST /v1/buckets/BUCKET}: {@code {"checksum":"md5"}} for a local bucket; for a remote
 * one also {@code "backend":{"endpoint","region","pathStyle","credentialsFile","profile","anonymous"}} and
 * {@code "freshness":{"ttl":"60s"|"0"|"never","sync":false}}; for any bucket {@code "protection":{"mirror.copies":2,
 * ...}} with the keys of {@link Protection#KEYS} (docs/protection.md). Unknown fields are refused, so a typo is not
 * silently ignored. Without a checksum, a local bucket uses xxhash64 and a remote one the checksum its store vouches
 * for (MD5 for S3, CRC32C for GCS), so a cold GET hashes each byte once, storing and verifying with one pass.
 */
record BucketSpec(ChecksumType checksum, RemoteBackend backend, Freshness freshness, Protection protection) {
  /** The checksum to store objects with: the one asked for, else the provider's (see above). */
  ChecksumType checksumFor(Provider provider) {
    if (checksum != null) {
      return checksum;
    }
    return switch (provider) {
      case AIS -> ChecksumType.XXHASH64;
      case AWS -> ChecksumType.MD5;
      case GCP -> ChecksumType.CRC32C;
    };
  }

  private static final Set<String> TOP = Set.of("checksum", "backend", "freshness", "protection");
  private static final Set<String> BACKEND = Set.of("endpoint", "region", "pathStyle", "credentialsFile", "profile",
      "anonymous");
  private static final Set<String> FRESHNESS = Set.of("ttl", "sync");

  static BucketSpec parse(JsonNode body, boolean remote) {
    if (body == null) {
      return new BucketSpec(null, null, null, Protection.NONE);
    }
    requireObject(body, "bucket properties", TOP);
    ChecksumType checksum = null;
    String c = text(body, "checksum");
    if (c != null) {
      try {
        checksum = ChecksumType.parse(c);
      } catch (IllegalArgumentException e) {
        throw BadRequestException.invalidArgument(e.getMessage());
      }
    }
    if (!remote && (body.has("backend") || body.has("freshness"))) {
      throw BadRequestException.invalidArgument("backend and freshness apply to remote buckets (s3://, gs://) only");
    }
    RemoteBackend backend = null;
    Freshness freshness = null;
    try {
      JsonNode b = body.get("backend");
      if (b != null && !b.isNull()) {
        requireObject(b, "backend", BACKEND);
        backend = new RemoteBackend(text(b, "endpoint"), text(b, "region"), bool(b, "pathStyle"),
            text(b, "credentialsFile"), text(b, "profile"), bool(b, "anonymous"));
      }
      JsonNode f = body.get("freshness");
      if (f != null && !f.isNull()) {
        requireObject(f, "freshness", FRESHNESS);
        String ttl = text(f, "ttl");
        freshness = new Freshness(ttl == null ? Freshness.DEFAULT.ttlSeconds() : ttlSeconds(ttl), bool(f, "sync"));
      }
    } catch (IllegalArgumentException e) {
      throw BadRequestException.invalidArgument(e.getMessage());
    }
    JsonNode p = body.get("protection");
    return new BucketSpec(checksum, backend, freshness, p == null || p.isNull() ? Protection.NONE
        : protection(p, Protection.NONE));
  }

  /**
   * {@code base} with the settings of {@code settings}, a JSON object of {@link Protection#KEYS} to numbers,
   * booleans or their text (the CLI sends {@code KEY=VALUE} as text); 400 for anything else.
   */
  static Protection protection(JsonNode settings, Protection base) {
    if (settings == null || !settings.isObject() || settings.isEmpty()) {
      throw new BadRequestException(BadRequestException.MALFORMED_JSON, "bucket properties must be a JSON object "
          + "with at least one of " + String.join(", ", Protection.KEYS));
    }
    Map<String, String> values = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = settings.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode v = e.getValue();
      if (!v.isValueNode() || v.isNull()) {
        throw BadRequestException.invalidArgument("'" + e.getKey() + "' must be a number, true/false or a string");
      }
      values.put(e.getKey(), v.asText());
    }
    try {
      return base.with(values);
    } catch (IllegalArgumentException e) {
      throw BadRequestException.invalidArgument(e.getMessage());
    }
  }

  /** {@code never} or {@code -1}: -1; otherwise a number with an optional unit s, m, h or d. */
  static long ttlSeconds(String ttl) {
    String t = ttl.trim().toLowerCase(Locale.ROOT);
    if (t.equals("never") || t.equals("-1")) {
      return -1;
    }
    long unit = 1;
    char last = t.isEmpty() ? ' ' : t.charAt(t.length() - 1);
    switch (last) {
      case 's' -> unit = 1;
      case 'm' -> unit = 60;
      case 'h' -> unit = 3600;
      case 'd' -> unit = 86400;
      default -> last = ' ';
    }
    String digits = last == ' ' ? t : t.substring(0, t.length() - 1);
    try {
      long n = Long.parseLong(digits);
      if (n < 0) {
        throw new NumberFormatException();
      }
      return Math.multiplyExact(n, unit);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException("freshness ttl must be like 30s, 5m, 1h, 0 (check every read) or never; got '"
          + ttl + "'");
    }
  }

  private static void requireObject(JsonNode n, String what, Set<String> allowed) {
    if (!n.isObject()) {
      throw new BadRequestException(BadRequestException.MALFORMED_JSON, what + " must be a JSON object");
    }
    for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!allowed.contains(f)) {
        throw BadRequestException.invalidArgument("unknown field '" + f + "' in " + what + "; known: "
            + String.join(", ", new TreeSet<>(allowed)));
      }
    }
  }

  private static String text(JsonNode n, String field) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isTextual() && !v.isNumber()) {
      throw BadRequestException.invalidArgument("'" + field + "' must be a string");
    }
    return v.asText();
  }

  private static boolean bool(JsonNode n, String field) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      return false;
    }
    if (!v.isBoolean()) {
      throw BadRequestException.invalidArgument("'" + field + "' must be true or false");
    }
    return v.asBoolean();
  }
}
