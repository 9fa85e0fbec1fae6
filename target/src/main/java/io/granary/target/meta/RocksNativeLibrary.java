package io.granary.target.meta;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.net.URISyntaxException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.CodeSource;
import java.util.List;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import org.rocksdb.RocksDB;
import org.rocksdb.util.Environment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads RocksDB's JNI library from a copy kept between starts. RocksDB's own loader inflates its 17 MB library from
 * the jar into a new temporary file at every start (0.2-0.3 s of CPU here) and deletes it only on a normal exit, so
 * every target killed or crashed left one behind in {@code /tmp}: a crash-looping pod fills its {@code /tmp}, and
 * the test suite, which kills targets on purpose, left hundreds.
 *
 * <p>The copy lives in {@code java.io.tmpdir/granary-native-USER/rocksdbjni-CRC-SIZE/}, named after the library's
 * CRC-32 and size in the jar's directory (read without inflating it), so another RocksDB version gets a directory
 * of its own and older ones are removed. The directory must belong to this user and admit no one else's writes:
 * a library another user could replace would run inside the target. A copy is written to a temporary file, synced
 * and renamed, so concurrent starts and a crash mid-copy never leave a torn library under the final name. Anything
 * unexpected (no jar, no POSIX permissions, a full or {@code noexec} /tmp) falls back to RocksDB's own loader.
 */
final class RocksNativeLibrary {
  private static final Logger log = LoggerFactory.getLogger(RocksNativeLibrary.class);
  private static final String PREFIX = "rocksdbjni-";

  private RocksNativeLibrary() {
  }

  /** Loads the library once per JVM; later calls return at once. */
  static void load() {
    Path base = Path.of(System.getProperty("java.io.tmpdir"), "granary-native-" + System.getProperty("user.name"));
    try {
      Path dir = kept(base);
      RocksDB.loadLibrary(List.of(dir.toString()));
      removeOthers(base, dir);
    } catch (IOException | RuntimeException | UnsatisfiedLinkError e) {
      log.debug("RocksDB library not loaded from a kept copy under {}, extracting it as RocksDB does: {}", base,
          e.toString());
      RocksDB.loadLibrary();
    }
  }

  /** The directory holding this RocksDB's library, copied there from the jar unless it is already. */
  static Path kept(Path base) throws IOException {
    String resource = Environment.getJniLibraryFileName("rocksdb");
    Path jar = jarOf(RocksDB.class);
    try (JarFile jf = new JarFile(jar.toFile())) {
      ZipEntry entry = jf.getEntry(resource);
      if (entry == null || entry.getCrc() < 0 || entry.getSize() < 0) {
        throw new IOException(jar + " holds no " + resource);
      }
      privateDirectory(base);
      Path dir = base.resolve(PREFIX + Long.toHexString(entry.getCrc()) + "-" + entry.getSize());
      Path lib = dir.resolve(keptName());
      if (Files.isRegularFile(lib) && Files.size(lib) == entry.getSize()) {
        return dir;
      }
      Files.createDirectories(dir);
      Path tmp = Files.createTempFile(dir, ".extract-", ".tmp");
      try {
        try (InputStream in = jf.getInputStream(entry);
            FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE);
            OutputStream out = Channels.newOutputStream(ch)) {
          in.transferTo(out);
          ch.force(true);
        }
        Files.move(tmp, lib, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } finally {
        Files.deleteIfExists(tmp);
      }
      return dir;
    }
  }

  /**
   * The file name {@link RocksDB#loadLibrary(List)} loads from each directory it is given. It asks
   * {@code getJniLibraryFileName("rocksdbjni")} (librocksdbjnijni-linux64.so), while the jar holds the library under
   * {@code getJniLibraryFileName("rocksdb")}. The copy is named as the loader asks; should a later release ask for
   * another name, loading falls back to RocksDB's own way, and RocksNativeLibraryTest, which checks what the JVM
   * maps, fails first.
   */
  static String keptName() {
    return Environment.getJniLibraryFileName("rocksdbjni");
  }

  private static Path jarOf(Class<?> c) throws IOException {
    CodeSource src = c.getProtectionDomain().getCodeSource();
    if (src == null || src.getLocation() == null) {
      throw new IOException("no code source for " + c.getName());
    }
    try {
      Path p = Path.of(src.getLocation().toURI());
      if (!Files.isRegularFile(p)) {
        throw new IOException(c.getName() + " is not loaded from a jar: " + p);
      }
      return p;
    } catch (URISyntaxException | IllegalArgumentException e) {
      throw new IOException("code source of " + c.getName() + ": " + e.getMessage(), e);
    }
  }

  /** Creates {@code base} for this user alone, or checks that an existing one is this user's and closed to others. */
  private static void privateDirectory(Path base) throws IOException {
    if (!FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      throw new IOException("no POSIX permissions to keep the library private");
    }
    if (!Files.isDirectory(base)) {
      try {
        Files.createDirectory(base, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(
            "rwx------")));
      } catch (FileAlreadyExistsException e) {
        // made by a concurrent start: checked below like any existing one
      }
    }
    Set<PosixFilePermission> perms = Files.getPosixFilePermissions(base, LinkOption.NOFOLLOW_LINKS);
    String owner = Files.getOwner(base, LinkOption.NOFOLLOW_LINKS).getName();
    if (Files.isSymbolicLink(base) || !owner.equals(System.getProperty("user.name"))
        || perms.contains(PosixFilePermission.GROUP_WRITE) || perms.contains(PosixFilePermission.OTHERS_WRITE)) {
      throw new IOException(base + " is not this user's alone (owner " + owner + ", "
          + PosixFilePermissions.toString(perms) + ")");
    }
  }

  /** Removes the copies of other RocksDB versions (a process still running one keeps its mapping). */
  private static void removeOthers(Path base, Path keep) {
    try (Stream<Path> dirs = Files.list(base)) {
      for (Path d : dirs.filter(d -> d.getFileName().toString().startsWith(PREFIX) && !d.equals(keep)).toList()) {
        try (Stream<Path> files = Files.list(d)) {
          for (Path f : files.toList()) {
            Files.deleteIfExists(f);
          }
        }
        Files.deleteIfExists(d);
      }
    } catch (IOException e) {
      log.debug("old RocksDB library copies under {} not removed: {}", base, e.toString());
    }
  }
}
