package io.granary.loader.mlperf;

import io.granary.loader.LoadOptions;
import io.granary.loader.Protocol;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One MLPerf-style run of {@code granary load --workload}, validated: every violation is an
 * {@link IllegalArgumentException} whose message is one line naming the flag. Defaults (the workload's DLIO values)
 * are resolved by the caller, so every component here is the value used.
 *
 * @param endpoints proxies (native, s3) or base URLs (http); accelerators are spread over them round-robin
 * @param bucket the dataset's bucket; unused by http
 * @param accelerators emulated accelerators of a run, or where {@code --search} starts
 * @param search find the most accelerators whose mean AU reaches the workload's threshold
 * @param maxAccelerators the search's upper bound; 0: as many as the dataset gives at least two steps
 * @param files files in the dataset; 0 with {@code namesFile} (the file lists them)
 * @param samplesPerFile samples (records) in each file
 * @param epochs epochs of each run (each probe of a search)
 * @param stepsPerEpoch steps of each accelerator per epoch; 0: as many as its share of the dataset fills
 * @param computeSeconds emulated compute time per batch (the workload's H100 figure unless overridden)
 * @param readThreads reader threads of each accelerator
 * @param prefix where the DLIO-named files live ({@code PREFIX/train/img_..}), empty or ending in '/'
 * @param namesFile the dataset's files, one name a line, instead of DLIO names; null for DLIO names
 * @param generate PUT the dataset (the objects missing from the bucket) before running
 * @param generateDir also, or instead, write the dataset as plain files under this directory; null: no
 * @param generateOnly generate, then stop without a run
 * @param workers parallel PUTs or file writes while generating
 * @param jsonFile where to write the results, or null
 * @param seed seeds sample sizes, content and the shuffle; the same seed reads what it generated
 * @param direct native only: GET straight from the owning targets, signed with {@code clusterSecret}
 * @param clusterSecret the cluster secret (direct only); never printed
 */
public record MlperfOptions(Workload workload, List<URI> endpoints, String bucket, Protocol protocol,
    int accelerators, boolean search, int maxAccelerators, int files, int samplesPerFile, int epochs,
    int stepsPerEpoch, double computeSeconds, int readThreads, String prefix, Path namesFile, boolean generate,
    Path generateDir, boolean generateOnly, int workers, Path jsonFile, long seed, String accessKey,
    String secretKey, boolean direct, String clusterSecret) {

  /** Emulated accelerators are platform threads, each with its reader threads: a bound that fits one host. */
  public static final int MAX_ACCELERATORS = 1024;

  private static final Pattern SECONDS = Pattern.compile("(\\d+(?:\\.\\d+)?|\\.\\d+)(ms|s)?");

  public MlperfOptions {
    endpoints = List.copyOf(endpoints);
    if (workload == null) {
      throw new IllegalArgumentException("--workload is required");
    }
    if (endpoints.isEmpty()) {
      throw new IllegalArgumentException("--endpoint: give at least one URL");
    }
    boolean runs = !generateOnly;
    boolean needsCluster = runs || generate;
    if (needsCluster && protocol != Protocol.HTTP && (bucket == null || bucket.isBlank())) {
      throw new IllegalArgumentException("--bucket is required with --protocol " + protocol.wireName());
    }
    if (accelerators < 1 || accelerators > MAX_ACCELERATORS) {
      throw new IllegalArgumentException("--accelerators must be 1 to " + MAX_ACCELERATORS + ", not " + accelerators);
    }
    if (maxAccelerators != 0 && !search) {
      throw new IllegalArgumentException("--max-accelerators only applies with --search");
    }
    if (maxAccelerators < 0 || maxAccelerators > MAX_ACCELERATORS) {
      throw new IllegalArgumentException("--max-accelerators must be 1 to " + MAX_ACCELERATORS + ", not "
          + maxAccelerators);
    }
    if (maxAccelerators != 0 && maxAccelerators < accelerators) {
      throw new IllegalArgumentException("--max-accelerators (" + maxAccelerators + ") is below --accelerators ("
          + accelerators + "), where the search starts");
    }
    if (namesFile != null && files != 0) {
      throw new IllegalArgumentException("--files and --names both give the dataset's files: use one");
    }
    if (namesFile == null && (files < 1 || files > 100_000_000)) {
      throw new IllegalArgumentException("--files must be 1 to 100000000, not " + files);
    }
    if (samplesPerFile < 1 || samplesPerFile > 1_000_000) {
      throw new IllegalArgumentException("--samples-per-file must be 1 to 1000000, not " + samplesPerFile);
    }
    if (epochs < 1 || epochs > 1000) {
      throw new IllegalArgumentException("--epochs must be 1 to 1000, not " + epochs);
    }
    if (stepsPerEpoch != 0 && (stepsPerEpoch < 2 || stepsPerEpoch > 10_000_000)) {
      throw new IllegalArgumentException("--steps-per-epoch must be at least 2 (AU excludes the first step), not "
          + stepsPerEpoch);
    }
    if (!(computeSeconds > 0 && computeSeconds <= 3600)) {
      throw new IllegalArgumentException("--compute-time must be above 0 and at most 1h");
    }
    if (readThreads < 1 || readThreads > 256) {
      throw new IllegalArgumentException("--read-threads must be 1 to 256, not " + readThreads);
    }
    if (workers < 1 || workers > 1000) {
      throw new IllegalArgumentException("--workers must be 1 to 1000, not " + workers);
    }
    prefix = prefix == null ? "" : prefix.strip();
    if (prefix.startsWith("/")) {
      throw new IllegalArgumentException("--prefix must not start with '/': object names are relative");
    }
    if (!prefix.isEmpty() && !prefix.endsWith("/")) {
      prefix = prefix + "/";
    }
    if (generate && protocol == Protocol.HTTP) {
      throw new IllegalArgumentException("--generate PUTs through --protocol native or s3; for --protocol http write "
          + "the files with --generate-dir DIR and serve DIR");
    }
    if (generateOnly && !generate && generateDir == null) {
      throw new IllegalArgumentException("--generate-only needs --generate or --generate-dir DIR");
    }
    if (namesFile != null && (generate || generateDir != null)) {
      throw new IllegalArgumentException("--names reads an existing dataset, --generate and --generate-dir write the "
          + "DLIO-named one: use one or the other");
    }
    LoadOptions.checkDirect(protocol, direct, clusterSecret);
    if (protocol == Protocol.S3 && needsCluster) {
      if (accessKey == null || accessKey.isBlank() || secretKey == null || secretKey.isBlank()) {
        throw new IllegalArgumentException("--protocol s3 needs --access-key and --secret-key (or AWS_ACCESS_KEY_ID "
            + "and AWS_SECRET_ACCESS_KEY)");
      }
      if (bucket.contains("://")) {
        throw new IllegalArgumentException("--protocol s3 takes a bare bucket name, not '" + bucket + "'");
      }
    }
  }

  /** The options without their secrets, which must never reach a log. */
  @Override
  public String toString() {
    return "MlperfOptions[workload=" + workload.wireName() + ", protocol=" + protocol.wireName() + ", endpoints="
        + endpoints + ", bucket=" + bucket + ", accelerators=" + accelerators + ", search=" + search
        + ", maxAccelerators=" + maxAccelerators + ", files=" + files + ", samplesPerFile=" + samplesPerFile
        + ", epochs=" + epochs + ", stepsPerEpoch=" + stepsPerEpoch + ", computeSeconds=" + computeSeconds
        + ", readThreads=" + readThreads + ", prefix=" + prefix + ", names=" + namesFile + ", generate=" + generate
        + ", generateDir=" + generateDir + ", generateOnly=" + generateOnly + ", workers=" + workers + ", json="
        + jsonFile + ", seed=" + seed + ", direct=" + direct + ", accessKey=" + (accessKey == null ? null : "(set)")
        + ", secretKey=" + (secretKey == null ? null : "(set)") + ", clusterSecret="
        + (clusterSecret == null ? null : "(set)") + "]";
  }

  /** Samples each accelerator consumes per step. */
  public int batch() {
    return workload.batch();
  }

  /**
   * {@code --compute-time}: seconds as a decimal ({@code 0.224}, {@code 0.224s}) or milliseconds ({@code 3.5ms}).
   */
  public static double parseSeconds(String flag, String value) {
    Matcher m = SECONDS.matcher(value == null ? "" : value.strip().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException(flag + ": invalid time '" + value + "': use seconds (0.224, 0.224s) or "
          + "milliseconds (3.5ms)");
    }
    double v = Double.parseDouble(m.group(1));
    return "ms".equals(m.group(2)) ? v / 1000 : v;
  }
}
