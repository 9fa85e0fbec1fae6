package io.granary.common.jobs;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * A bash-style brace-range template such as {@code shard-{0000..0999}.tar}: every {@code {A..B}} or
 * {@code {A..B..STEP}} range expands to the integers from A to B (descending when A &gt; B), zero-padded to the
 * wider of A and B when either has a leading zero. Several ranges multiply, the last one varying fastest (as bash
 * does). A template without braces is one literal name.
 *
 * <p>Names are produced lazily by {@link #iterator()}: ten million names cost no more memory than ten.
 */
public final class NameTemplate implements Iterable<String> {
  /** Upper bound on the names one template may stand for; far beyond any dataset, it keeps counts in a long. */
  public static final long MAX_NAMES = 1_000_000_000_000L;

  /** A literal part or a range; a literal has count 1. */
  private record Part(String literal, long start, long step, long count, int width) {
    String at(long i) {
      if (literal != null) {
        return literal;
      }
      long v = start + i * step;
      String s = Long.toString(Math.abs(v));
      StringBuilder sb = new StringBuilder(width + 1);
      if (v < 0) {
        sb.append('-');
      }
      for (int pad = width - s.length() - (v < 0 ? 1 : 0); pad > 0; pad--) {
        sb.append('0');
      }
      return sb.append(s).toString();
    }
  }

  private final String source;
  private final List<Part> parts;
  private final long size;

  private NameTemplate(String source, List<Part> parts, long size) {
    this.source = source;
    this.parts = parts;
    this.size = size;
  }

  /**
   * Parses {@code template}.
   *
   * @throws IllegalArgumentException saying what is wrong: unbalanced or nested braces, a range that is not
   *     {@code {A..B}} or {@code {A..B..STEP}} of integers, a zero step, or more than {@link #MAX_NAMES} names
   */
  public static NameTemplate parse(String template) {
    if (template == null || template.isEmpty()) {
      throw new IllegalArgumentException("template must not be empty");
    }
    List<Part> parts = new ArrayList<>();
    StringBuilder lit = new StringBuilder();
    long size = 1;
    int i = 0;
    while (i < template.length()) {
      char c = template.charAt(i);
      if (c == '}') {
        throw new IllegalArgumentException("template '" + template + "': '}' at " + i + " has no matching '{'");
      }
      if (c != '{') {
        lit.append(c);
        i++;
        continue;
      }
      int close = template.indexOf('}', i);
      int nested = template.indexOf('{', i + 1);
      if (close < 0) {
        throw new IllegalArgumentException("template '" + template + "': '{' at " + i + " is never closed");
      }
      if (nested >= 0 && nested < close) {
        throw new IllegalArgumentException("template '" + template + "': nested '{' at " + nested);
      }
      if (!lit.isEmpty()) {
        parts.add(new Part(lit.toString(), 0, 0, 1, 0));
        lit.setLength(0);
      }
      Part range = range(template, template.substring(i + 1, close));
      parts.add(range);
      try {
        size = Math.multiplyExact(size, range.count());
      } catch (ArithmeticException e) {
        size = Long.MAX_VALUE;
      }
      if (size > MAX_NAMES) {
        throw new IllegalArgumentException("template '" + template + "' stands for more than " + MAX_NAMES + " names");
      }
      i = close + 1;
    }
    if (!lit.isEmpty()) {
      parts.add(new Part(lit.toString(), 0, 0, 1, 0));
    }
    return new NameTemplate(template, List.copyOf(parts), size);
  }

  private static Part range(String template, String body) {
    String[] f = body.split("\\.\\.", -1);
    if (f.length < 2 || f.length > 3) {
      throw new IllegalArgumentException("template '" + template + "': '{" + body
          + "}' is not a range; use {A..B} or {A..B..STEP} with integers");
    }
    long a = number(template, body, f[0]);
    long b = number(template, body, f[1]);
    long step = f.length == 3 ? number(template, body, f[2]) : 1;
    if (step == 0) {
      throw new IllegalArgumentException("template '" + template + "': step in '{" + body + "}' must not be 0");
    }
    step = Math.abs(step);
    long count;
    try {
      count = Math.subtractExact(Math.max(a, b), Math.min(a, b)) / step + 1;
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("template '" + template + "': range '{" + body + "}' is too large");
    }
    int width = padded(f[0]) || padded(f[1]) ? Math.max(f[0].length(), f[1].length()) : 0;
    return new Part(null, a, a <= b ? step : -step, count, width);
  }

  /** Bash pads when a bound is written with a leading zero ("007", "-07"), to the wider bound. */
  private static boolean padded(String s) {
    String digits = s.startsWith("-") || s.startsWith("+") ? s.substring(1) : s;
    return digits.length() > 1 && digits.charAt(0) == '0';
  }

  private static long number(String template, String body, String s) {
    if (!s.matches("[+-]?[0-9]{1,18}")) {
      throw new IllegalArgumentException("template '" + template + "': '" + s + "' in '{" + body
          + "}' is not an integer");
    }
    return Long.parseLong(s);
  }

  /** How many names the template stands for (1 for a literal). */
  public long size() {
    return size;
  }

  /** Whether the template has no ranges (it is one literal name). */
  public boolean isLiteral() {
    return parts.stream().allMatch(p -> p.literal() != null);
  }

  @Override
  public Iterator<String> iterator() {
    return new Iterator<>() {
      private final long[] idx = new long[parts.size()]; // odometer over the parts, last one fastest
      private long produced;

      @Override
      public boolean hasNext() {
        return produced < size;
      }

      @Override
      public String next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        StringBuilder sb = new StringBuilder(source.length() + 8);
        for (int p = 0; p < idx.length; p++) {
          sb.append(parts.get(p).at(idx[p]));
        }
        for (int p = idx.length - 1; p >= 0; p--) {
          if (++idx[p] < parts.get(p).count()) {
            break;
          }
          idx[p] = 0;
        }
        produced++;
        return sb.toString();
      }
    };
  }

  @Override
  public String toString() {
    return source;
  }
}
