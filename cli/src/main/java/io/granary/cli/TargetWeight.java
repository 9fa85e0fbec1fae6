package io.granary.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The placement weight a target registers with ({@code --weight}): a number as given, or {@code auto}, the capacity
 * of its mountpaths in TiB, so that a target with twice the disk is given twice the objects without anyone working
 * the numbers out by hand.
 */
final class TargetWeight {
  static final String AUTO = "auto";
  /** The smallest weight auto gives: a tiny test disk still takes part in placement. */
  static final double MIN_AUTO = 0.001;
  private static final double TIB = 1L << 40;

  private TargetWeight() {}

  /**
   * {@code spec} as a weight.
   *
   * @param capacityLimit {@code --capacity} in bytes (each mountpath's), or 0 when not given: then each mountpath
   *     counts with the total size of its file system
   */
  static double resolve(String spec, List<Path> mountpaths, long capacityLimit) throws IOException {
    String s = spec.trim();
    if (!AUTO.equalsIgnoreCase(s)) {
      try {
        return Double.parseDouble(s); // TargetConfig refuses what is not positive and finite
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--weight must be a positive number or auto, got '" + spec + "'");
      }
    }
    long total = 0;
    for (Path mp : mountpaths) {
      total += capacityLimit > 0 ? capacityLimit : fileSystemSize(mp);
    }
    return ofCapacity(total);
  }

  /** {@code bytes} in TiB, rounded to 3 decimals, at least {@link #MIN_AUTO}. */
  static double ofCapacity(long bytes) {
    return Math.max(MIN_AUTO, Math.round(bytes / TIB * 1000) / 1000.0);
  }

  /** The total size of the file system {@code dir} is on, creating {@code dir} first as the target would. */
  static long fileSystemSize(Path dir) throws IOException {
    Files.createDirectories(dir);
    return Files.getFileStore(dir).getTotalSpace();
  }
}
