package io.granary.loader.workload;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Object names: reading a list file, splitting names among loaders, and the names a loader PUTs. */
public final class Names {
  private Names() {}

  /** One name a line; blank lines and lines starting with '#' are skipped. */
  public static List<String> read(Path file) {
    try {
      List<String> out = new ArrayList<>();
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        String s = line.strip();
        if (!s.isEmpty() && !s.startsWith("#")) {
          out.add(s);
        }
      }
      return out;
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException("--names: no such file: " + file);
    } catch (IOException e) {
      throw new UncheckedIOException("--names: cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * The names loader {@code id} of {@code loaders} takes: those whose FNV-1a hash is {@code id} modulo
   * {@code loaders}. Each name goes to exactly one loader, whatever order each host read the list in.
   */
  public static List<String> forLoader(List<String> names, int id, int loaders) {
    if (loaders == 1) {
      return names;
    }
    List<String> out = new ArrayList<>();
    for (String n : names) {
      if (Long.remainderUnsigned(Content.fnv1a(n), loaders) == id) {
        out.add(n);
      }
    }
    return out;
  }

  /** The prefix of everything loader {@code id} writes, so loaders never overwrite each other. */
  public static String putPrefix(int loaderId) {
    return "loader-" + loaderId + "/";
  }

  /** The name of PUT number {@code seq} of {@code worker}: unique in the run and the same for the same seed. */
  public static String putName(int loaderId, int worker, long seq) {
    return putPrefix(loaderId) + String.format("w%03d-%09d", worker, seq);
  }
}
