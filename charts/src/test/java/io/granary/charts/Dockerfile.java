package io.granary.charts;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The instructions of a Dockerfile, enough of its syntax for our own: comments, continuations, JSON arrays. */
record Dockerfile(List<Instruction> instructions) {
  private static final Pattern ASSIGNMENT = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)=(\"([^\"]*)\"|(\\S*))");

  record Instruction(String keyword, String arguments) {
    /** The whitespace-separated words, without leading --flags. */
    List<String> words() {
      return List.of(arguments.trim().split("\\s+")).stream().filter(w -> !w.startsWith("--")).toList();
    }

    boolean hasFlag(String prefix) {
      return List.of(arguments.trim().split("\\s+")).stream().anyMatch(w -> w.startsWith(prefix));
    }

    /** KEY=value pairs (ENV, ARG), with double-quoted values unquoted. */
    Map<String, String> assignments() {
      Map<String, String> out = new LinkedHashMap<>();
      Matcher m = ASSIGNMENT.matcher(arguments);
      while (m.find()) {
        out.put(m.group(1), m.group(3) != null ? m.group(3) : m.group(4));
      }
      return out;
    }
  }

  static Dockerfile parse(String text) {
    List<Instruction> out = new ArrayList<>();
    StringBuilder pending = new StringBuilder();
    for (String line : text.split("\n")) {
      String trimmed = line.strip();
      if (trimmed.startsWith("#") || (trimmed.isEmpty() && pending.isEmpty())) {
        continue;
      }
      if (trimmed.endsWith("\\")) {
        pending.append(trimmed, 0, trimmed.length() - 1).append(' ');
        continue;
      }
      pending.append(trimmed);
      String whole = pending.toString().strip();
      pending.setLength(0);
      int space = whole.indexOf(' ');
      out.add(new Instruction(whole.substring(0, space).toUpperCase(), whole.substring(space + 1).strip()));
    }
    return new Dockerfile(List.copyOf(out));
  }

  List<Instruction> all(String keyword) {
    return instructions.stream().filter(i -> i.keyword().equals(keyword)).toList();
  }

  Instruction one(String keyword) {
    List<Instruction> all = all(keyword);
    if (all.size() != 1) {
      throw new AssertionError("expected one " + keyword + ", got " + all);
    }
    return all.get(0);
  }
}
