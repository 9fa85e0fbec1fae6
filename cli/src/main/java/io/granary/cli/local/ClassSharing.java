package io.granary.cli.local;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Application class-data sharing for a local cluster's node JVMs, which spend much of their start loading and
 * verifying the same seven thousand classes: a target's start from launch to serving took 6.4-6.7 s without an
 * archive and 4.5-5.4 s with one on the 2-core development VM, and the integration tests start about two hundred.
 *
 * <p>The first cluster started for a classpath records the classes its nodes load ({@code -Xlog:class+load}, one
 * file per process); once it is ready, a static archive of them is dumped in the background ({@code -Xshare:dump},
 * about 8 s of one core) under a name made of the JDK and of every classpath entry's size and time, and clusters
 * started afterwards map it ({@code -XX:SharedArchiveFile}). A rebuilt jar or another JDK gets an archive of its own
 * (older ones are removed); an archive the JVM refuses anyway means a normal start ({@code -Xshare:auto}, CDS
 * messages off), never a failed one. Nothing is added when the options already choose ({@code -Xshare:off}, an
 * archive of the user's own).
 */
public final class ClassSharing {
  private static final Logger log = LoggerFactory.getLogger(ClassSharing.class);
  /** Directories whose archive one cluster of this JVM is recording or dumping now (tests start many clusters). */
  private static final Set<Path> BUSY = new HashSet<>();
  private static final String LOADED_PREFIX = "loaded-";

  private final Path dir;
  private final String classpath;
  private final Path archive;
  private boolean recording;

  /** Archives for nodes run with {@code classpath}, kept in {@code dir}. */
  public ClassSharing(Path dir, String classpath) {
    this.dir = dir.toAbsolutePath();
    this.classpath = classpath;
    this.archive = this.dir.resolve("nodes-" + fingerprint(classpath) + ".jsa");
  }

  /** The JVM options to add for the nodes of a cluster starting now, given the options it has already. */
  public synchronized List<String> jvmOptions(List<String> given) {
    if (given.stream().anyMatch(o -> o.equals("-Xshare:off") || o.equals("-Xshare:dump")
        || o.contains("SharedArchiveFile") || o.contains("ArchiveClassesAtExit"))) {
      return List.of();
    }
    if (Files.isRegularFile(archive)) {
      return List.of("-XX:SharedArchiveFile=" + archive, "-Xshare:auto", "-Xlog:cds=off", "-Xlog:cds+dynamic=off");
    }
    synchronized (BUSY) {
      if (!BUSY.add(dir)) {
        return List.of(); // another cluster is recording for this directory
      }
    }
    try {
      Files.createDirectories(dir);
      removeLoadedLogs();
    } catch (IOException e) {
      release();
      return List.of();
    }
    recording = true;
    // Straight in dir, which is never removed: a node restarted with this command line must find its log's
    // directory, or the JVM does not start.
    return List.of("-Xlog:class+load=info:file=" + dir.resolve(LOADED_PREFIX + "%p.log"));
  }

  /** The cluster is up: when its nodes recorded, the archive is made from what they loaded, in the background. */
  public synchronized void clusterReady() {
    if (!recording) {
      return;
    }
    recording = false;
    Thread t = new Thread(() -> dump(), "class-sharing-dump");
    t.setDaemon(true);
    t.start();
  }

  /** The cluster did not start: another may record. */
  public synchronized void clusterFailed() {
    if (recording) {
      recording = false;
      release();
    }
  }

  private void release() {
    synchronized (BUSY) {
      BUSY.remove(dir);
    }
  }

  /** Makes the archive from the recorded classes, now; true when it was made. */
  boolean dump() {
    Path tmp = archive.resolveSibling(archive.getFileName() + ".tmp");
    try {
      Path list = dir.resolve("classes.lst");
      Files.write(list, loadedClasses(), StandardCharsets.UTF_8);
      Files.deleteIfExists(tmp);
      Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xshare:dump", "-XX:SharedClassListFile=" + list, "-XX:SharedArchiveFile=" + tmp, "-cp", classpath)
          .redirectErrorStream(true).redirectOutput(dir.resolve("dump.log").toFile()).start();
      Thread stop = new Thread(p::destroyForcibly, "class-sharing-dump-stop"); // no process outlives the launcher
      Runtime.getRuntime().addShutdownHook(stop);
      boolean ok = p.waitFor(180, TimeUnit.SECONDS) && p.exitValue() == 0 && Files.isRegularFile(tmp);
      try {
        Runtime.getRuntime().removeShutdownHook(stop);
      } catch (IllegalStateException e) {
        // shutting down: the hook runs
      }
      if (!ok) {
        p.destroyForcibly();
        log.info("class-data archive for the nodes not made (see {}): nodes start without one", dir
            .resolve("dump.log"));
        return false;
      }
      try (Stream<Path> old = Files.list(dir)) {
        for (Path f : old.filter(f -> f.getFileName().toString().matches("nodes-.*\\.jsa")).toList()) {
          Files.deleteIfExists(f);
        }
      }
      Files.move(tmp, archive, StandardCopyOption.ATOMIC_MOVE);
      return true;
    } catch (IOException e) {
      log.info("class-data archive for the nodes not made: {}", e.toString());
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      try {
        Files.deleteIfExists(tmp);
        removeLoadedLogs(); // a node still writing keeps its open file
      } catch (IOException e) {
        // left for the next recording, which clears it
      }
      release();
    }
  }

  /**
   * The classes named in the recorded logs ({@code [...][class,load] a.b.C source: ...}) in the internal form a class
   * list takes; generated ones (lambdas, hidden classes) are left out: they cannot be listed.
   */
  private List<String> loadedClasses() throws IOException {
    TreeSet<String> names = new TreeSet<>();
    for (Path f : loadedLogs()) {
      for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
        int start = line.lastIndexOf("] ");
        int end = line.indexOf(" source: ");
        if (start >= 0 && end > start && !line.contains("source: __")) {
          String name = line.substring(start + 2, end);
          if (!name.contains("/0x") && !name.contains("$$Lambda")) {
            names.add(name.replace('.', '/'));
          }
        }
      }
    }
    return List.copyOf(names);
  }

  private List<Path> loadedLogs() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().startsWith(LOADED_PREFIX)).toList();
    }
  }

  private void removeLoadedLogs() throws IOException {
    for (Path f : loadedLogs()) {
      Files.deleteIfExists(f);
    }
  }

  /**
   * The JDK and every classpath entry's path, size and modification time, with the jars a jar's manifest names
   * ({@code Class-Path}): granary.jar runs with its libraries that way, and a rebuilt library alone must change the
   * name too, or the JVM silently refuses the stale archive and nothing would record a new one.
   */
  static String fingerprint(String classpath) {
    StringBuilder sb = new StringBuilder(System.getProperty("java.home")).append('|')
        .append(System.getProperty("java.vm.version"));
    Set<Path> seen = new HashSet<>();
    for (String entry : classpath.split(java.io.File.pathSeparator)) {
      describe(Path.of(entry).toAbsolutePath().normalize(), seen, sb);
    }
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(sb.toString().getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void describe(Path p, Set<Path> seen, StringBuilder sb) {
    if (!seen.add(p)) {
      return;
    }
    sb.append('|').append(p);
    try {
      sb.append(':').append(Files.size(p)).append(':')
          .append(Files.getLastModifiedTime(p).to(TimeUnit.MILLISECONDS));
    } catch (IOException e) {
      sb.append(":missing");
      return;
    }
    for (Path dependency : manifestClassPath(p)) {
      describe(dependency, seen, sb);
    }
  }

  /** The jars {@code jar}'s manifest adds to the classpath, resolved against its directory as the JVM does. */
  static List<Path> manifestClassPath(Path jar) {
    if (!Files.isRegularFile(jar) || !jar.getFileName().toString().endsWith(".jar")) {
      return List.of();
    }
    try (JarFile f = new JarFile(jar.toFile())) {
      Manifest m = f.getManifest();
      String cp = m == null ? null : m.getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
      if (cp == null || cp.isBlank()) {
        return List.of();
      }
      Path base = jar.getParent();
      List<Path> out = new ArrayList<>();
      for (String ref : cp.trim().split("\\s+")) {
        try {
          out.add(base.resolve(URI.create(ref).getPath()).normalize());
        } catch (IllegalArgumentException e) {
          out.add(base.resolve(ref).normalize());
        }
      }
      return out;
    } catch (IOException e) {
      return List.of();
    }
  }
}
