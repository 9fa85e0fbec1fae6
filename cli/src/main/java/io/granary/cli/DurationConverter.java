package io.granary.cli;

import java.time.Duration;
import picocli.CommandLine;

/** Parses durations like {@code 500ms}, {@code 10s}, {@code 5m}, {@code 1h}, {@code 7d}. */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
  @Override
  public Duration convert(String value) {
    String v = value.trim();
    try {
      if (v.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
      } else if (v.endsWith("s")) {
        return Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)));
      } else if (v.endsWith("m")) {
        return Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 1)));
      } else if (v.endsWith("h")) {
        return Duration.ofHours(Long.parseLong(v.substring(0, v.length() - 1)));
      } else if (v.endsWith("d")) {
        return Duration.ofDays(Long.parseLong(v.substring(0, v.length() - 1)));
      }
    } catch (NumberFormatException e) {
      // fall through
    }
    throw new CommandLine.TypeConversionException("invalid duration '" + value + "': use e.g. 500ms, 10s, 5m, 1h, 7d");
  }
}
