package io.granary.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Locale;

/**
 * Renders a prefetch job's status as one progress line: a bar when the total is known, objects done/total, bytes
 * fetched, rates and ETA; and the bar, byte and duration formats other progress lines share. Written by hand rather than with a progress-bar library because the line shows two units
 * (objects and bytes) and a total that may appear only later (a prefix job learns it when its listing ends).
 */
final class ProgressLine {
  private static final int BAR = 24;

  private ProgressLine() {}

  static String render(JsonNode job) {
    JsonNode o = job.path("objects");
    long done = o.path("done").asLong();
    boolean totalKnown = o.hasNonNull("total");
    long total = o.path("total").asLong();
    StringBuilder sb = new StringBuilder();
    if (totalKnown && total > 0) {
      sb.append(bar(done, total)).append(done).append('/').append(total).append(" objects");
    } else {
      sb.append(done).append(" objects");
    }
    sb.append(", ").append(bytes(job.path("bytes").path("done").asLong())).append(" fetched");
    long failed = o.path("failed").asLong();
    if (failed > 0) {
      sb.append(", ").append(failed).append(" failed");
    }
    JsonNode rate = job.path("rate");
    sb.append(String.format(Locale.ROOT, ", %.1f obj/s, %s/s", rate.path("objects_per_sec").asDouble(),
        bytes((long) rate.path("bytes_per_sec").asDouble())));
    if (job.hasNonNull("eta_seconds")) {
      sb.append(", ETA ").append(duration(job.path("eta_seconds").asLong()));
    }
    return sb.toString();
  }

  /** A bar and percentage for {@code done} of {@code total} (&gt; 0), with a trailing space: "[====>   ]  40% ". */
  static String bar(long done, long total) {
    double f = Math.min(1.0, (double) done / total);
    int full = (int) Math.round(f * BAR);
    return "[" + "=".repeat(full) + (full < BAR ? ">" : "") + " ".repeat(Math.max(0, BAR - full - 1)) + "] "
        + String.format(Locale.ROOT, "%3d%% ", (int) Math.floor(f * 100));
  }

  static String bytes(long n) {
    if (n < 1024) {
      return n + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = n;
    int u = -1;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
  }

  static String duration(long s) {
    return s >= 3600 ? String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
        : String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
  }
}
