package io.granary.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.OptionalLong;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ties a node's life to its launcher's ({@code --exit-with-parent PID}, which {@code granary local} passes): once a
 * second it looks whether the launcher still runs, and stops the node only when it is sure the launcher is gone.
 *
 * <p>Why not {@code ProcessHandle.onExit()}: for a process that is not its child the JDK polls {@code /proc/PID/stat}
 * and takes a failed open for an exit, so a node at its file-descriptor limit (EMFILE) shut itself down with a live
 * launcher. Here each look has three outcomes, and "cannot tell" never stops the node:
 *
 * <ol>
 *   <li>our own parent pid, when it can be read: the launcher's means alive; another one means the kernel has
 *       re-parented us, so the launcher is gone (only when the launcher was our parent at start);
 *   <li>otherwise (the read needs a file descriptor) a {@code stat} of {@code /proc/PID}, which needs none: present
 *       is alive, "no such file" is gone, any other error is cannot tell;
 *   <li>without {@code /proc} (macOS), the JDK's {@code ProcessHandle.of(pid)}, which asks the kernel directly.
 * </ol>
 *
 * A pid reused by another process after the launcher died reads as alive (at worst a node outlives its launcher,
 * it never kills a live cluster); as our parent pid changes with the launcher's death, a direct child is not fooled.
 */
final class ParentWatch {
  private static final Logger log = LoggerFactory.getLogger(ParentWatch.class);

  /** What one look found. */
  enum Verdict { ALIVE, GONE, CANNOT_TELL }

  private final long launcher;
  private final boolean wasChild;
  private final Supplier<OptionalLong> currentParent;
  private final LongFunction<Verdict> processEntry;
  private boolean unsure; // the last look could not tell: log once per streak

  ParentWatch(long launcher, boolean wasChild, Supplier<OptionalLong> currentParent,
      LongFunction<Verdict> processEntry) {
    this.launcher = launcher;
    this.wasChild = wasChild;
    this.currentParent = currentParent;
    this.processEntry = processEntry;
  }

  /** A watch of {@code launcher} through this process's parent pid and the system's process table. */
  static ParentWatch of(long launcher) {
    OptionalLong parent = ParentWatch.ownParent();
    boolean procfs = Files.isDirectory(Path.of("/proc/self")); // decided once: a later stat could fail
    return new ParentWatch(launcher, parent.isPresent() && parent.getAsLong() == launcher, ParentWatch::ownParent,
        procfs ? ParentWatch::procEntry : ParentWatch::processTable);
  }

  /** One look at the launcher. */
  Verdict look() {
    OptionalLong parent = currentParent.get();
    if (parent.isPresent() && wasChild) {
      return parent.getAsLong() == launcher ? Verdict.ALIVE : Verdict.GONE;
    }
    return processEntry.apply(launcher);
  }

  /** Looks every second on a daemon thread and runs {@code onGone} once the launcher is surely gone. */
  void start(Runnable onGone) {
    ScheduledExecutorService s = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "parent-watch");
      t.setDaemon(true);
      return t;
    });
    s.scheduleWithFixedDelay(() -> {
      if (observe(look())) {
        log.info("launcher pid={} is gone: stopping", launcher);
        s.shutdown();
        onGone.run();
      }
    }, 1, 1, TimeUnit.SECONDS);
  }

  /** Records a look's verdict; true when the node must stop. */
  boolean observe(Verdict v) {
    if (v == Verdict.CANNOT_TELL && !unsure) {
      log.warn("cannot tell whether launcher pid={} runs (file descriptors exhausted?); the node keeps running",
          launcher);
    }
    unsure = v == Verdict.CANNOT_TELL;
    return v == Verdict.GONE;
  }

  /** This process's parent pid, or empty when it cannot be read now. */
  private static OptionalLong ownParent() {
    try {
      return ProcessHandle.current().parent().map(p -> OptionalLong.of(p.pid())).orElse(OptionalLong.empty());
    } catch (RuntimeException e) {
      return OptionalLong.empty();
    }
  }

  /** Without /proc the JDK asks the kernel (sysctl on macOS): no file is opened. */
  private static Verdict processTable(long pid) {
    return ProcessHandle.of(pid).map(p -> p.isAlive() ? Verdict.ALIVE : Verdict.GONE).orElse(Verdict.GONE);
  }

  private static Verdict procEntry(long pid) {
    try {
      Files.readAttributes(Path.of("/proc", Long.toString(pid)), BasicFileAttributes.class); // stat(2): no fd
      return Verdict.ALIVE;
    } catch (NoSuchFileException e) {
      return Verdict.GONE;
    } catch (IOException | RuntimeException e) {
      return Verdict.CANNOT_TELL;
    }
  }
}
