package io.granary.common.membership;

import io.granary.clustermap.ClusterJson;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Persists cluster metadata as JSON in one or more directories (a target keeps a copy on every mountpath, so one
 * lost disk loses no metadata). Each write goes to a temporary file, is fsynced, then renamed over the old one:
 * a crash leaves either the old or the new file, never a torn one.
 */
public final class MetadataFiles {
  static final String FILE = "cluster-metadata.json";

  private final Supplier<List<Path>> dirs;
  private final boolean mountpaths; // a target's mountpaths: never created, and one failing disk fails no write

  public MetadataFiles(List<Path> dirs) {
    List<Path> fixed = List.copyOf(dirs);
    this.dirs = () -> fixed;
    this.mountpaths = false;
  }

  /**
   * Copies in whichever directories {@code dirs} names at each write or read (a target's mountpaths, which change).
   * A directory that does not exist is not created (it belongs to a disk that went away), and a write succeeds when
   * at least one copy was written: a failing disk is disabled by its health check, not by cluster metadata.
   */
  public MetadataFiles(Supplier<List<Path>> dirs) {
    this.dirs = dirs;
    this.mountpaths = true;
  }

  /** Writes a copy in every directory (for mountpaths: in every one that works, at least one). */
  public void write(ClusterMetadata md) throws IOException {
    byte[] json = ClusterJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsBytes(md);
    IOException firstError = null;
    int written = 0;
    List<Path> now = dirs.get();
    for (Path dir : now) {
      try {
        if (mountpaths && !Files.isDirectory(dir)) {
          throw new NoSuchFileException(dir.toString(), null, "directory is gone");
        }
        writeAtomically(dir.resolve(FILE), json);
        written++;
      } catch (IOException e) {
        firstError = firstError == null ? e : firstError;
      }
    }
    if (firstError != null && (written == 0 || !mountpaths)) {
      throw firstError;
    }
  }

  /** The newest readable copy (highest map version, then bucket version), or empty when there is none. */
  public Optional<ClusterMetadata> readNewest() throws IOException {
    List<ClusterMetadata> found = new ArrayList<>();
    IOException firstError = null;
    for (Path dir : dirs.get()) {
      try {
        found.add(ClusterJson.mapper().readValue(Files.readAllBytes(dir.resolve(FILE)), ClusterMetadata.class));
      } catch (NoSuchFileException e) {
        // never written here
      } catch (IOException e) {
        firstError = firstError == null ? e : firstError;
      }
    }
    if (found.isEmpty() && firstError != null) {
      throw new IOException("no readable cluster metadata in " + dirs.get(), firstError);
    }
    return found.stream().max((a, b) -> a.map().version() != b.map().version()
        ? Long.compare(a.map().version(), b.map().version())
        : Long.compare(a.buckets().version(), b.buckets().version()));
  }

  /** Writes {@code data} to {@code file} via temp file, fsync and rename; fsyncs the directory too. */
  public static void writeAtomically(Path file, byte[] data) throws IOException {
    Path dir = file.getParent();
    Files.createDirectories(dir);
    Path tmp = dir.resolve(file.getFileName() + ".tmp");
    try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer buf = ByteBuffer.wrap(data);
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
      ch.force(true);
    }
    try {
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
    }
    fsyncDirectory(dir);
  }

  /** Makes a rename or create in {@code dir} durable. */
  public static void fsyncDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }
}
