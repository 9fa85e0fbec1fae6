package io.granary.target.meta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** RocksDB's library is copied out of its jar once, kept where only this user can write, and mapped from there. */
class RocksNativeLibraryTest {
  @TempDir
  Path tmp;

  @Test
  void theJvmMapsTheKeptCopy_notAFreshTemporaryFile() throws Exception {
    try (MetaStore store = MetaStore.open(tmp.resolve("meta"))) {
      String maps = Files.readString(Path.of("/proc/self/maps"));
      Path base = Path.of(System.getProperty("java.io.tmpdir"), "granary-native-" + System.getProperty("user.name"));
      assertThat(maps).contains(base.toString() + "/rocksdbjni-")
          .doesNotContainPattern("/librocksdbjni[0-9]+\\.so");
    }
  }

  @Test
  void theCopyIsMadeOnce_andATruncatedOneIsReplaced() throws Exception {
    Path base = tmp.resolve("native");
    Path dir = RocksNativeLibrary.kept(base);
    Path lib = dir.resolve(RocksNativeLibrary.keptName());
    long size = Files.size(lib);
    assertThat(size).isGreaterThan(1_000_000);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(base))).isEqualTo("rwx------");

    FileTime made = FileTime.fromMillis(1_000_000L);
    Files.setLastModifiedTime(lib, made);
    assertThat(RocksNativeLibrary.kept(base)).isEqualTo(dir);
    assertThat(Files.getLastModifiedTime(lib)).as("a whole copy is used as it is").isEqualTo(made);

    try (var ch = java.nio.channels.FileChannel.open(lib, java.nio.file.StandardOpenOption.WRITE)) {
      ch.truncate(size / 2); // a copy torn some other way than ours (ours are renamed into place whole)
    }
    assertThat(RocksNativeLibrary.kept(base)).isEqualTo(dir);
    assertThat(Files.size(lib)).isEqualTo(size);
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files).as("no temporary file is left").containsExactly(lib);
    }
  }

  @Test
  void aDirectoryOthersMayWriteTo_isRefused() throws IOException {
    Path base = Files.createDirectory(tmp.resolve("shared"));
    Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwxrwxrwx"));
    assertThatThrownBy(() -> RocksNativeLibrary.kept(base)).isInstanceOf(IOException.class)
        .hasMessageContaining("not this user's alone");
    try (Stream<Path> files = Files.list(base)) {
      assertThat(files).as("nothing is written there").isEmpty();
    }
  }
}
