package io.granary.target.jobs;

import io.granary.common.jobs.NameTemplate;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A prefetch job as a proxy sends it to every target ({@code POST /v1/jobs} on the target). The proxy has
 * validated it already; the checks here guard the target against a bad internal call.
 *
 * @param id the job id the proxy chose; the same on every target
 * @param bucket the remote bucket, {@code s3://b} or {@code gs://b}
 * @param names explicit object names; or null
 * @param prefix every object whose name starts with it (empty: the whole bucket); or null
 * @param template a brace-range template ({@link NameTemplate}); or null
 * @param latest revalidate cached copies against the remote even within the bucket's freshness window
 * @param concurrency fills in flight on this target; 0 for the target's default
 * @param targets ids of every target taking part, so a status reader can tell a target that lost the job
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record PrefetchSpec(String id, String bucket, List<String> names, String prefix, String template,
    boolean latest, int concurrency, List<String> targets) {
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,63}");

  public PrefetchSpec {
    if (id == null || !ID.matcher(id).matches()) {
      throw new IllegalArgumentException("job id must be 1-64 letters, digits, '_' or '-', got '" + id + "'");
    }
    Objects.requireNonNull(bucket, "bucket");
    int given = (names != null ? 1 : 0) + (prefix != null ? 1 : 0) + (template != null ? 1 : 0);
    if (given != 1) {
      throw new IllegalArgumentException("give exactly one of names, prefix or template");
    }
    if (concurrency < 0) {
      throw new IllegalArgumentException("concurrency must be >= 0, got " + concurrency);
    }
    names = names == null ? null : List.copyOf(names);
    targets = targets == null ? List.of() : List.copyOf(targets);
  }

  /** Which kind of selection this job has: {@code names}, {@code prefix} or {@code template}. */
  public String selectionKind() {
    return names != null ? "names" : prefix != null ? "prefix" : "template";
  }
}
