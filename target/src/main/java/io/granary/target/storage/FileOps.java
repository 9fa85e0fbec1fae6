package io.granary.target.storage;

import io.granary.common.membership.MetadataFiles;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.stream.Stream;

/**
 * The file-system operations storage code needs beyond java.nio: an atomic replacing move, durable directory
 * entries, a durable kernel copy, and a tree delete.
 *
 * <p>Durability: fsync of a file makes its bytes durable, not its name. A rename or a new directory becomes durable
 * only once its parent directory is fsynced; until then a power loss may undo it (ext4, xfs). Every commit path
 * calls {@link #syncDirectory} after its rename and {@link #createDirectories} for the directories it needs.
 */
public final class FileOps {
  private FileOps() {}

  /** Makes the entries of {@code dir} (renames into it, files and directories created in it) durable. */
  public static void syncDirectory(Path dir) throws IOException {
    MetadataFiles.fsyncDirectory(dir);
  }

  /**
   * Creates {@code dir} and any missing parents, durably: each directory created is made durable in its parent.
   * Nothing is synced when {@code dir} exists already (the common case: an object's fan-out directory).
   */
  public static void createDirectories(Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      return;
    }
    Path existing = dir.getParent();
    while (existing != null && !Files.isDirectory(existing)) {
      existing = existing.getParent();
    }
    Files.createDirectories(dir);
    // Sync from the deepest new directory up to the first one that existed: each new name lives in its parent.
    for (Path p = dir; p != null && !p.equals(existing); p = p.getParent()) {
      syncDirectory(p.getParent());
    }
  }

  /** Renames {@code from} over {@code to}, atomically where the file system allows. */
  public static void moveReplacing(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  /**
   * Copies {@code size} bytes of {@code src} from its start into {@code dst} at its position, in the kernel
   * ({@code transferTo}: copy_file_range or sendfile on Linux), never through a heap buffer; then fsyncs
   * {@code dst}. A source shorter than {@code size} is an error.
   */
  public static void copyDurably(FileChannel src, long size, FileChannel dst) throws IOException {
    long done = 0;
    while (done < size) {
      long n = src.transferTo(done, size - done, dst);
      if (n <= 0) {
        if (src.size() < size) {
          throw new IOException("source is " + src.size() + " bytes, expected " + size);
        }
        continue; // transferTo may return 0 before the end; the size check above ends a truly short source
      }
      done += n;
    }
    dst.force(true);
  }

  /** Copies the file {@code from} to the new file {@code to} with {@link #copyDurably}. */
  public static void copyDurably(Path from, Path to) throws IOException {
    try (FileChannel in = FileChannel.open(from, StandardOpenOption.READ);
        FileChannel out = FileChannel.open(to, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      copyDurably(in, in.size(), out);
    }
  }

  /** Deletes {@code root} and everything below it; nothing when it does not exist. */
  public static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : (Iterable<Path>) walk.sorted((a, b) -> b.getNameCount() - a.getNameCount())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }
}
