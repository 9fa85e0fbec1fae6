package io.granary.common.config;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses sizes like {@code 150KiB}, {@code 1MiB}, {@code 10MB}, {@code 2G} or {@code 4096}. Binary units (KiB,
 * MiB, GiB, TiB, and the bare K, M, G, T) are powers of 1024; decimal units (KB, MB, GB, TB) powers of 1000.
 */
public final class ByteSize {
  private static final Pattern SIZE = Pattern.compile("\\s*(\\d+(?:\\.\\d+)?)\\s*([a-zA-Z]*)\\s*");

  private ByteSize() {}

  /** The number of bytes {@code text} names; {@link IllegalArgumentException} with the accepted forms otherwise. */
  public static long parse(String text) {
    Matcher m = text == null ? null : SIZE.matcher(text);
    if (m == null || !m.matches()) {
      throw new IllegalArgumentException("invalid size '" + text + "': use a number with an optional unit, e.g. 4096, 150KiB, 1MiB, 10MB");
    }
    double n = Double.parseDouble(m.group(1));
    long unit = switch (m.group(2).toLowerCase(Locale.ROOT)) {
      case "", "b" -> 1L;
      case "k", "ki", "kib" -> 1L << 10;
      case "m", "mi", "mib" -> 1L << 20;
      case "g", "gi", "gib" -> 1L << 30;
      case "t", "ti", "tib" -> 1L << 40;
      case "kb" -> 1000L;
      case "mb" -> 1000_000L;
      case "gb" -> 1000_000_000L;
      case "tb" -> 1000_000_000_000L;
      default -> throw new IllegalArgumentException("invalid size '" + text + "': unknown unit '" + m.group(2)
          + "'; use B, KiB, MiB, GiB, TiB (or K, M, G, T), KB, MB, GB or TB");
    };
    double bytes = n * unit;
    if (bytes > Long.MAX_VALUE) {
      throw new IllegalArgumentException("invalid size '" + text + "': too large");
    }
    return (long) bytes;
  }
}
