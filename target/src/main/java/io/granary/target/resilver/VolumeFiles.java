package io.granary.target.resilver;

import io.granary.clustermap.ClusterJson;
import io.granary.common.membership.MetadataFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Reads and writes {@link VolumeRecord} copies: {@code .granary/mountpaths.json} in each mountpath, written to a
 * temporary file, fsynced and renamed (a crash leaves the old copy or the new one); the newest readable copy wins.
 */
final class VolumeFiles {
  static final String FILE = "mountpaths.json";

  private VolumeFiles() {}

  /** The newest copy in any of the {@code systemDirs} ({@code MOUNTPATH/.granary}), or empty when none has one. */
  static Optional<VolumeRecord> readNewest(List<Path> systemDirs) {
    VolumeRecord newest = null;
    for (Path dir : systemDirs) {
      try {
        VolumeRecord r = ClusterJson.mapper().readValue(Files.readAllBytes(dir.resolve(FILE)), VolumeRecord.class);
        if (newest == null || r.version() > newest.version()) {
          newest = r;
        }
      } catch (NoSuchFileException e) {
        // never written here: a new mountpath, or a target from before volume records
      } catch (IOException e) {
        // unreadable copy (a failing disk): another one tells the same
      }
    }
    return Optional.ofNullable(newest);
  }

  /**
   * The newest record of a target whose {@code --mountpath} directories are {@code roots}: read from them, then from
   * every mountpath the records read so far name, until no new one is named. The newest copy may be only on
   * mountpaths attached at run time (no flag names them) while a flagged one holds an older copy naming them.
   */
  static Optional<VolumeRecord> readNewestFrom(List<Path> roots) {
    java.util.Set<Path> known = new java.util.LinkedHashSet<>(roots);
    while (true) {
      Optional<VolumeRecord> newest = readNewest(known.stream().map(p -> p.resolve(".granary")).toList());
      boolean grew = false;
      for (VolumeRecord r : newest.stream().toList()) {
        for (VolumeRecord.Entry e : r.mountpaths()) {
          grew |= known.add(Path.of(e.path()));
        }
      }
      if (!grew) {
        return newest;
      }
    }
  }

  /**
   * Writes {@code r} to every directory; one that fails is skipped as long as another was written.
   *
   * @return the directories that failed
   */
  static List<Path> write(VolumeRecord r, List<Path> systemDirs) throws IOException {
    byte[] json = ClusterJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsBytes(r);
    IOException first = null;
    List<Path> failed = new java.util.ArrayList<>();
    for (Path dir : systemDirs) {
      try {
        if (!Files.isDirectory(dir)) { // a mountpath whose directory vanished: never create it again
          throw new NoSuchFileException(dir.toString(), null, "directory is gone");
        }
        MetadataFiles.writeAtomically(dir.resolve(FILE), json);
      } catch (IOException e) {
        first = first == null ? e : first;
        failed.add(dir);
      }
    }
    if (first != null && failed.size() == systemDirs.size()) {
      throw new IOException("no copy of the mountpath record could be written", first);
    }
    return failed;
  }
}
