package io.granary.common.jvm;

import java.util.List;

/**
 * JVM options that map the class-data archive where it was dumped, so its pages stay shared and clean. Current JDK 17
 * builds (17.0.15 here) map the archive at a random address at every start ({@code ArchiveRelocationMode=1}, a
 * hardening later JDKs have too). Relocating rewrites every pointer in it, and each JVM then holds a private copy of
 * what it maps: about 10 MiB for the JDK's own archive and 30 MiB for the archive `granary local` dumps for its nodes.
 * Mapped at its dump address, the archive's read-only part is page cache, shared by every node on a host and
 * reclaimable, not anonymous memory charged to each node (bench/footprint.sh, docs/memory.md).
 *
 * <p>The cost is that class metadata sits at a known address, as it did in older builds. The option is diagnostic, and
 * a JVM that does not know it refuses to start, so it is given only on JDK 17, where it was checked. Nodes started
 * with {@code -XX:ArchiveRelocationMode=1} after these options keep relocating.
 */
public final class SharedArchiveMapping {
  /** The options for a JVM of {@code feature} release, or none. */
  public static List<String> jvmOptions(int feature) {
    return feature == 17 ? List.of("-XX:+UnlockDiagnosticVMOptions", "-XX:ArchiveRelocationMode=0") : List.of();
  }

  /** The options for a JVM of this JVM's release (a launcher starting nodes with its own JDK). */
  public static List<String> jvmOptions() {
    return jvmOptions(Runtime.version().feature());
  }

  private SharedArchiveMapping() {}
}
