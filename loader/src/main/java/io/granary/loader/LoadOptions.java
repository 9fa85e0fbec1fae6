package io.granary.loader;

import io.granary.common.config.ByteSize;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One run of the loader, validated: every violation is an {@link IllegalArgumentException} whose message is one
 * line naming the flag, so the command can print it as is.
 *
 * @param endpoints proxies (native, s3) or base URLs (http); workers are spread over them round-robin
 * @param bucket {@code NAME}, {@code ais://NAME}, {@code s3://NAME} or {@code gs://NAME}; unused by http
 * @param duration how long to load; zero means until {@code maxPuts} PUTs were sent (with pctPut 100)
 * @param minSize smallest PUT object, bytes
 * @param maxSize largest PUT object, bytes (sizes are uniform in [minSize, maxSize])
 * @param pctPut share of operations that are PUTs, 0 to 100
 * @param maxPuts at most this many PUTs in the run (0: no limit)
 * @param namesFile objects to GET, one name a line; null: the objects this run PUTs, or a bucket listing
 * @param verify check every GET body (see {@code docs/loader.md}: regenerated content or MD5 ETag)
 * @param jsonFile where to write the machine-readable results, or null
 * @param loaderId this loader's index among {@code loaders} loaders splitting the names
 * @param seed seeds sizes, the PUT/GET mix, object picks and object content
 * @param interval period of the stats rows (zero: summary only)
 * @param cleanup delete the objects this run PUT when it ends
 * @param accessKey S3 access key (s3 only)
 * @param secretKey S3 secret key (s3 only)
 */
public record LoadOptions(List<URI> endpoints, String bucket, Protocol protocol, Duration duration, int workers,
    long minSize, long maxSize, int pctPut, long maxPuts, Path namesFile, boolean verify, Path jsonFile,
    int loaderId, int loaders, long seed, Duration interval, boolean cleanup, String accessKey, String secretKey) {

  private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h)?");

  public LoadOptions {
    endpoints = List.copyOf(endpoints);
    if (endpoints.isEmpty()) {
      throw new IllegalArgumentException("--endpoint: give at least one URL");
    }
    if (protocol != Protocol.HTTP && (bucket == null || bucket.isBlank())) {
      throw new IllegalArgumentException("--bucket is required with --protocol " + protocol.wireName());
    }
    if (workers < 1 || workers > 10_000) {
      throw new IllegalArgumentException("--workers must be 1 to 10000, not " + workers);
    }
    if (minSize < 0 || maxSize < 0) {
      throw new IllegalArgumentException("--min-size and --max-size must not be negative");
    }
    if (minSize > maxSize) {
      throw new IllegalArgumentException("--min-size (" + minSize + " bytes) is larger than --max-size (" + maxSize
          + " bytes)");
    }
    if (pctPut < 0 || pctPut > 100) {
      throw new IllegalArgumentException("--pct-put must be 0 to 100, not " + pctPut);
    }
    if (maxPuts < 0) {
      throw new IllegalArgumentException("--max-puts must not be negative");
    }
    if (loaders < 1 || loaderId < 0 || loaderId >= loaders) {
      throw new IllegalArgumentException("--loader-id must be 0 to --loaders - 1 (got --loader-id " + loaderId
          + " --loaders " + loaders + ")");
    }
    if (duration.isNegative() || interval.isNegative()) {
      throw new IllegalArgumentException("--duration and --interval must not be negative");
    }
    if (duration.isZero() && (pctPut != 100 || maxPuts == 0)) {
      throw new IllegalArgumentException("--duration 0 runs until --max-puts; it needs --pct-put 100 and --max-puts N");
    }
    if (protocol == Protocol.HTTP) {
      if (pctPut > 0 || cleanup) {
        throw new IllegalArgumentException("--protocol http only GETs: drop --pct-put and --cleanup");
      }
      if (namesFile == null) {
        throw new IllegalArgumentException("--protocol http needs --names FILE (there is no listing)");
      }
    } else if (protocol == Protocol.S3) {
      if (accessKey == null || accessKey.isBlank() || secretKey == null || secretKey.isBlank()) {
        throw new IllegalArgumentException("--protocol s3 needs --access-key and --secret-key (or AWS_ACCESS_KEY_ID "
            + "and AWS_SECRET_ACCESS_KEY)");
      }
      if (bucket.contains("://")) {
        throw new IllegalArgumentException("--protocol s3 takes a bare bucket name, not '" + bucket + "'");
      }
    }
  }

  /** Endpoints from repeated and comma-separated {@code --endpoint} values; each must be an http(s) URL. */
  public static List<URI> parseEndpoints(List<String> values) {
    List<URI> out = new ArrayList<>();
    for (String v : values) {
      for (String s : v.split(",")) {
        String e = s.strip();
        if (e.isEmpty()) {
          continue;
        }
        URI u;
        try {
          u = URI.create(e.endsWith("/") ? e.substring(0, e.length() - 1) : e);
        } catch (IllegalArgumentException ex) {
          throw new IllegalArgumentException("--endpoint: invalid URL '" + e + "'");
        }
        if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getHost() == null) {
          throw new IllegalArgumentException("--endpoint: '" + e + "' is not an http:// or https:// URL");
        }
        out.add(u);
      }
    }
    return out;
  }

  /** A size flag such as {@code 150KiB}; the message names the flag. */
  public static long parseSize(String flag, String value) {
    try {
      return ByteSize.parse(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(flag + ": " + e.getMessage());
    }
  }

  /** {@code 0}, {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}; a bare number is seconds. */
  public static Duration parseDuration(String flag, String value) {
    Matcher m = DURATION.matcher(value == null ? "" : value.strip().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException(flag + ": invalid duration '" + value + "': use e.g. 500ms, 30s, 2m, 1h");
    }
    try {
      long n = Long.parseLong(m.group(1));
      String unit = m.group(2) == null ? "s" : m.group(2);
      return switch (unit) {
        case "ms" -> Duration.ofMillis(n);
        case "m" -> Duration.ofMinutes(n);
        case "h" -> Duration.ofHours(n);
        default -> Duration.ofSeconds(n);
      };
    } catch (ArithmeticException | NumberFormatException e) {
      throw new IllegalArgumentException(flag + ": duration '" + value + "' is too long");
    }
  }
}
