package io.granary.loader;

import io.granary.common.config.ByteSize;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
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
 * @param epochs passes over the run's names, each reading every name once in a fresh shuffled order (0: none; the
 *     run then ends at {@code duration})
 * @param uniqueGets GETs walk shuffled permutations of the names, so all are read equally (aisloader's
 *     {@code -uniquegets}); false: each GET picks uniformly at random, with replacement
 * @param readOff first byte of each GET (a range read when this or {@code readLen} is set)
 * @param readLen bytes to read from {@code readOff}; 0 reads to the end of the object
 * @param direct send object requests (native) or object GETs (S3) straight to the owning target (HRW over the
 *     cluster map)
 * @param clusterSecret the cluster secret direct requests are signed with (direct only); never printed
 */
public record LoadOptions(List<URI> endpoints, String bucket, Protocol protocol, Duration duration, int workers,
    long minSize, long maxSize, int pctPut, long maxPuts, Path namesFile, boolean verify, Path jsonFile,
    int loaderId, int loaders, long seed, Duration interval, boolean cleanup, String accessKey, String secretKey,
    int epochs, boolean uniqueGets, long readOff, long readLen, boolean direct, String clusterSecret) {

  private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h)?");
  /** The shortest cluster secret the nodes accept ({@code ClusterSigner}: 16 bytes). */
  static final int MIN_SECRET_LENGTH = 16;

  /** The options of the first loader slice: unique GETs, whole objects, through the proxy. */
  public LoadOptions(List<URI> endpoints, String bucket, Protocol protocol, Duration duration, int workers,
      long minSize, long maxSize, int pctPut, long maxPuts, Path namesFile, boolean verify, Path jsonFile,
      int loaderId, int loaders, long seed, Duration interval, boolean cleanup, String accessKey, String secretKey) {
    this(endpoints, bucket, protocol, duration, workers, minSize, maxSize, pctPut, maxPuts, namesFile, verify,
        jsonFile, loaderId, loaders, seed, interval, cleanup, accessKey, secretKey, 0, true, 0, 0, false, null);
  }

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
    if (epochs < 0) {
      throw new IllegalArgumentException("--epochs must not be negative");
    }
    if (duration.isZero() && epochs == 0 && (pctPut != 100 || maxPuts == 0)) {
      throw new IllegalArgumentException("--duration 0 runs until --max-puts or --epochs; it needs --pct-put 100 and "
          + "--max-puts N, or --epochs N");
    }
    if (epochs > 0 && pctPut != 0) {
      throw new IllegalArgumentException("--epochs reads a fixed set of names once per epoch: it needs --pct-put 0");
    }
    if (epochs > 0 && !uniqueGets) {
      throw new IllegalArgumentException("--epochs reads every name once per epoch: drop --unique-gets=false");
    }
    if (readOff < 0 || readLen < 0) {
      throw new IllegalArgumentException("--read-off and --read-len must not be negative");
    }
    checkDirect(protocol, direct, clusterSecret);
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

  /** Whether GETs read a byte range rather than whole objects. */
  public boolean ranged() {
    return readOff > 0 || readLen > 0;
  }

  /** The options without their secrets, which must never reach a log. */
  @Override
  public String toString() {
    return "LoadOptions[protocol=" + protocol.wireName() + ", endpoints=" + endpoints + ", bucket=" + bucket
        + ", duration=" + duration + ", workers=" + workers + ", sizes=" + minSize + "-" + maxSize + ", pctPut="
        + pctPut + ", maxPuts=" + maxPuts + ", names=" + namesFile + ", verify=" + verify + ", json=" + jsonFile
        + ", loader=" + loaderId + "/" + loaders + ", seed=" + seed + ", interval=" + interval + ", cleanup=" + cleanup
        + ", epochs=" + epochs + ", uniqueGets=" + uniqueGets + ", read=" + readOff + "+" + readLen + ", direct="
        + direct + ", accessKey=" + (accessKey == null ? null : "(set)") + ", secretKey="
        + (secretKey == null ? null : "(set)") + ", clusterSecret=" + (clusterSecret == null ? null : "(set)") + "]";
  }

  /**
   * The cluster secret from {@code --cluster-secret}, {@code --cluster-secret-file} (its first line) or, with
   * {@code --direct} only, the environment's {@code GRANARY_CLUSTER_SECRET} ({@code env}); null if none.
   */
  public static String clusterSecret(String flag, Path file, boolean direct, String env) {
    if (flag != null && file != null) {
      throw new IllegalArgumentException("--cluster-secret and --cluster-secret-file: give one, not both");
    }
    if (file != null) {
      return readSecretFile(file);
    }
    if (flag != null) {
      return flag;
    }
    return direct && env != null && !env.isBlank() ? env : null;
  }

  /**
   * The cluster secret from {@code --cluster-secret-file}: the file's first line. One-line errors name the flag
   * and never quote the file's content.
   */
  public static String readSecretFile(Path file) {
    try {
      String first = Files.readAllLines(file, StandardCharsets.UTF_8).stream().findFirst().orElse("").strip();
      if (first.isEmpty()) {
        throw new IllegalArgumentException("--cluster-secret-file: " + file + " is empty");
      }
      return first;
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException("--cluster-secret-file: no such file: " + file);
    } catch (IOException | UncheckedIOException e) {
      throw new IllegalArgumentException("--cluster-secret-file: cannot read " + file + ": "
          + e.getClass().getSimpleName());
    }
  }

  /**
   * The checks of {@code --direct} and its secret, shared by the MLPerf mode's options. Native requests to targets
   * are signed with the cluster secret; S3 ones with the S3 keys, so a secret (from the environment, say) goes unused.
   */
  public static void checkDirect(Protocol protocol, boolean direct, String clusterSecret) {
    if (direct && protocol == Protocol.HTTP) {
      throw new IllegalArgumentException("--direct works with --protocol native or s3, not http");
    }
    if (direct && protocol == Protocol.S3) {
      return;
    }
    if (direct && (clusterSecret == null || clusterSecret.isBlank())) {
      throw new IllegalArgumentException("--direct needs the cluster secret: env GRANARY_CLUSTER_SECRET, "
          + "--cluster-secret-file FILE or --cluster-secret S (granary local writes it to DATA/cluster-secret)");
    }
    if (!direct && clusterSecret != null) {
      throw new IllegalArgumentException("--cluster-secret and --cluster-secret-file are used only with --direct");
    }
    if (direct && clusterSecret.strip().length() < MIN_SECRET_LENGTH) {
      throw new IllegalArgumentException("--cluster-secret: a cluster secret is at least " + MIN_SECRET_LENGTH
          + " characters");
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
