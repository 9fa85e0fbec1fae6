package io.granary.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@link ClassSharing} with the real JDK: a first cluster records, the classes it loaded are dumped into an archive
 * that a JVM maps with sharing required ({@code -Xshare:on} refuses to start otherwise), later clusters map it, a
 * changed jar records anew, and options that already choose are left alone.
 */
class ClassSharingTest {
  @TempDir
  Path dir;

  /** A jar of the test classpath: an archive holds classes of jars only. */
  private static Path picocliJar() throws Exception {
    return Path.of(CommandLine.class.getProtectionDomain().getCodeSource().getLocation().toURI());
  }

  @Test
  void firstClusterRecords_itsClassesAreDumped_andLaterClustersMapTheArchive() throws Exception {
    Path jar = Files.copy(picocliJar(), dir.resolve("app.jar"));
    ClassSharing sharing = new ClassSharing(dir.resolve("cds"), jar.toString());
    List<String> first = sharing.jvmOptions(List.of("-Xmx64m"));
    assertThat(first).singleElement().asString().startsWith("-Xlog:class+load=info:file=").endsWith("loaded-%p.log");
    assertThat(new ClassSharing(dir.resolve("cds"), jar.toString()).jvmOptions(List.of()))
        .as("one recording at a time for a directory").isEmpty();

    // What two nodes' logs say they loaded: a JDK class, one of the jar, and a lambda that cannot be listed.
    Path loaded = dir.resolve("cds");
    Files.writeString(loaded.resolve("loaded-1.log"), String.join("\n",
        "[0.010s][info][class,load] java.lang.Object source: shared objects file",
        "[0.200s][info][class,load] picocli.CommandLine source: file:" + jar,
        "[0.300s][info][class,load] picocli.CommandLine$$Lambda$14/0x0000000800c0b000 source: picocli.CommandLine",
        "[0.310s][info][class,load] ") + "\n", StandardCharsets.UTF_8);
    Files.writeString(loaded.resolve("loaded-2.log"),
        "[0.250s][info][class,load] picocli.CommandLine$Help source: file:" + jar + "\n", StandardCharsets.UTF_8);
    assertThat(sharing.dump()).isTrue();
    try (var left = Files.list(loaded)) {
      assertThat(left.map(f -> f.getFileName().toString())).as("the logs go once read, the directory stays")
          .noneMatch(f -> f.startsWith("loaded-")).anyMatch(f -> f.endsWith(".jsa"));
    }
    assertThat(Files.readAllLines(dir.resolve("cds/classes.lst")))
        .containsExactly("java/lang/Object", "picocli/CommandLine", "picocli/CommandLine$Help");

    Process restarted = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        first.get(0), "-version").redirectErrorStream(true).start();
    restarted.getInputStream().readAllBytes();
    assertThat(restarted.waitFor(60, TimeUnit.SECONDS) && restarted.exitValue() == 0)
        .as("a recording node restarted after the dump still finds where its log goes").isTrue();

    List<String> later = sharing.jvmOptions(List.of());
    assertThat(later).first().asString().startsWith("-XX:SharedArchiveFile=").endsWith(".jsa");
    String archive = later.get(0).substring("-XX:SharedArchiveFile=".length());
    Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:SharedArchiveFile=" + archive, "-Xshare:on", "-cp", jar.toString(), "-version")
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("a JVM that must map the archive starts with it: %s", out).isZero();
    assertThat(out).contains("sharing"); // java -version names the mode: "... (build ..., mixed mode, sharing)"

    // The jar rebuilt: its archive no longer fits, so the next cluster records again.
    Files.setLastModifiedTime(jar, FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() - 60_000));
    assertThat(new ClassSharing(dir.resolve("cds"), jar.toString()).jvmOptions(List.of()))
        .singleElement().asString().startsWith("-Xlog:class+load");
  }

  @Test
  void optionsThatAlreadyChoose_areLeftAlone() {
    ClassSharing sharing = new ClassSharing(dir.resolve("cds"), "app.jar");
    assertThat(sharing.jvmOptions(List.of("-Xshare:off"))).isEmpty();
    assertThat(sharing.jvmOptions(List.of("-XX:SharedArchiveFile=/mine.jsa"))).isEmpty();
    assertThat(sharing.jvmOptions(List.of("-Xshare:auto"))).as("auto is the default: still ours to add")
        .isNotEmpty();
  }

  @Test
  void aLibraryTheJarsManifestNames_isPartOfTheArchivesName() throws Exception {
    // granary.jar runs with its libraries through its manifest's Class-Path, not the command line.
    Files.createDirectories(dir.resolve("lib"));
    Path lib = Files.copy(picocliJar(), dir.resolve("lib/picocli.jar"));
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, "lib/picocli.jar lib/absent.jar");
    Path app = dir.resolve("app.jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(app), manifest)) {
      out.putNextEntry(new JarEntry("app.txt"));
      out.write('x');
    }
    assertThat(ClassSharing.manifestClassPath(app)).containsExactly(lib, dir.resolve("lib/absent.jar"));

    String before = ClassSharing.fingerprint(app.toString());
    assertThat(ClassSharing.fingerprint(app.toString())).as("stable while nothing changes").isEqualTo(before);
    Files.setLastModifiedTime(lib, FileTime.fromMillis(Files.getLastModifiedTime(lib).toMillis() - 60_000));
    assertThat(ClassSharing.fingerprint(app.toString())).as("only a library rebuilt").isNotEqualTo(before);
  }
}
