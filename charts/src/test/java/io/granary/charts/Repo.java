package io.granary.charts;

import java.nio.file.Files;
import java.nio.file.Path;

/** Paths in the repository checkout the tests run in (granary.root, set by the charts pom). */
final class Repo {
  private Repo() {
  }

  static Path root() {
    String root = System.getProperty("granary.root");
    if (root == null) {
      throw new IllegalStateException("system property granary.root is not set (run through Maven)");
    }
    return Path.of(root).toAbsolutePath().normalize();
  }

  static Path path(String relative) {
    return root().resolve(relative);
  }

  static String read(String relative) {
    try {
      return Files.readString(path(relative));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
