package io.granary.it.support;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Application class-data sharing for the node JVMs the integration tests start (some two hundred of them), which
 * spend much of their start loading and verifying the same few thousand classes: measured on the 2-core CI machine,
 * a target's start from launch to serving took 6.4-6.7 s without an archive and 4.5-5.4 s with one.
 *
 * <p>The first cluster of a test run records the classes its nodes load ({@code -Xlog:class+load}, one file per
 * process); once it is closed, those classes are dumped into a static archive ({@code -Xshare:dump}, in the
 * background, about 8 s of one core) that every node started afterwards maps ({@code -XX:SharedArchiveFile}). The
 * archive is made by this run for this run's classpath, so it never belongs to other jars; should it be missing or
 * refused, the JVM starts as it would without it ({@code -Xshare:auto}, its CDS messages off).
 */
final class NodeClassSharing {
  private static final Path DIR = Path.of(System.getProperty("granary.it.dir", "target/it-data")).toAbsolutePath()
      .resolve("class-sharing");
  private static final Path ARCHIVE = DIR.resolve("nodes.jsa");
  private static final Path LOADED = DIR.resolve("loaded");

  private enum State { NOT_STARTED, RECORDING, DUMPING, READY, OFF }

  private static State state = State.NOT_STARTED;

  private NodeClassSharing() {}

  /** The JVM options for a node starting now. */
  static synchronized List<String> jvmOptions() {
    switch (state) {
      case NOT_STARTED -> {
        try {
          TestCluster.deleteTree(DIR);
          Files.createDirectories(LOADED);
        } catch (IOException e) {
          state = State.OFF;
          return List.of();
        }
        state = State.RECORDING;
        return List.of("-Xlog:class+load=info:file=" + LOADED.resolve("loaded-%p.log"));
      }
      case READY -> {
        return List.of("-XX:SharedArchiveFile=" + ARCHIVE, "-Xshare:auto", "-Xlog:cds=off", "-Xlog:cds+dynamic=off");
      }
      default -> {
        return List.of();
      }
    }
  }

  /** A cluster closed: after the recording one, the archive is made from what its nodes loaded. */
  static synchronized void clusterClosed() {
    if (state != State.RECORDING) {
      return;
    }
    state = State.DUMPING;
    Thread t = new Thread(NodeClassSharing::dump, "node-class-sharing");
    t.setDaemon(true);
    t.start();
  }

  private static void dump() {
    boolean ok = false;
    try {
      Path list = DIR.resolve("classes.lst");
      Files.write(list, loadedClasses(), StandardCharsets.UTF_8);
      Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xshare:dump", "-XX:SharedClassListFile=" + list, "-XX:SharedArchiveFile=" + ARCHIVE,
          "-cp", System.getProperty("granary.node.classpath"))
          .redirectErrorStream(true).redirectOutput(DIR.resolve("dump.log").toFile()).start();
      ok = p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0 && Files.size(ARCHIVE) > 0;
      if (p.isAlive()) {
        p.destroyForcibly();
      }
    } catch (IOException e) {
      ok = false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (NodeClassSharing.class) {
      state = ok ? State.READY : State.OFF;
    }
  }

  /**
   * The classes named in the recorded logs ({@code [...][class,load] a.b.C source: ...}), in the internal form a
   * class list takes; generated classes (lambdas, hidden classes) are left out: they cannot be listed.
   */
  private static List<String> loadedClasses() throws IOException {
    TreeSet<String> names = new TreeSet<>();
    try (Stream<Path> logs = Files.list(LOADED)) {
      for (Path log : logs.toList()) {
        for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
          int start = line.lastIndexOf("] ");
          int end = line.indexOf(" source: ");
          if (start < 0 || end < start || line.contains("source: __")) {
            continue;
          }
          String name = line.substring(start + 2, end);
          if (!name.contains("/0x") && !name.contains("$$Lambda")) {
            names.add(name.replace('.', '/'));
          }
        }
      }
    }
    return List.copyOf(names);
  }
}
