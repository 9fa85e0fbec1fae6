package io.granary.cli.local;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/** Writes files only their owner may read (mode 0600, where the file system has POSIX permissions). */
final class PrivateFile {
  private PrivateFile() {}

  /**
   * Replaces {@code file} with {@code text}: written to a sibling created 0600, then moved over it, so the content is
   * never readable by others, not even for a moment, and a crash leaves the old file or the new one.
   */
  static void write(Path file, String text) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.deleteIfExists(tmp);
    try {
      Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (UnsupportedOperationException e) {
      Files.createFile(tmp);
    }
    Files.writeString(tmp, text, StandardCharsets.UTF_8);
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
