package io.granary.common.exec;

import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.List;
import java.util.concurrent.ThreadFactory;

/**
 * Threads for work no client waits for (a rebalance's copies and walks, resilvering, the mirror and EC walks, scrubs):
 * they run at the lowest Java priority, which the JVM options below turn into a Linux nice value, so that when the
 * cores are busy the scheduler gives them a tenth of what a client request's thread gets and they take what is left
 * otherwise. Without those options (any other OS, or a JVM started without them) the priority changes nothing.
 *
 * <p>Why: on two cores, a target joining under load had its first second of rebalance (copies leaving the senders,
 * being received and fsynced, its JIT compiling) compete on equal terms with the GETs of the same JVMs: the
 * foreground p99 during a rebalance measured 10-27 times the idle one without priorities and 3.5-5.4 times with them,
 * the same build back to back (bench/README.md, bench/rebalance.sh).
 */
public final class Background {
  /** The Java priority of background threads. */
  public static final int PRIORITY = Thread.MIN_PRIORITY;

  /**
   * JVM options that make {@link #PRIORITY} a nice value of 10 (a CFS weight of 110 against 1024 for nice 0) and
   * compile on threads of the same nice value. Everything else keeps nice 0, where the JVM would otherwise raise its
   * own threads (JIT, VM thread) above client threads when run as root. Lowering a thread's priority needs no
   * privilege; the JVM prints one warning at start when not root, about raising, which these options never ask for.
   */
  public static final List<String> JVM_OPTIONS = List.of("-XX:ThreadPriorityPolicy=1",
      "-XX:JavaPriority1_To_OSPriority=10", "-XX:JavaPriority2_To_OSPriority=0", "-XX:JavaPriority3_To_OSPriority=0",
      "-XX:JavaPriority4_To_OSPriority=0", "-XX:JavaPriority6_To_OSPriority=0", "-XX:JavaPriority7_To_OSPriority=0",
      "-XX:JavaPriority8_To_OSPriority=0", "-XX:JavaPriority9_To_OSPriority=0", "-XX:JavaPriority10_To_OSPriority=0",
      "-XX:CompilerThreadPriority=10", "-XX:VMThreadPriority=0");

  private Background() {}

  /** Daemon threads named {@code name-N} at {@link #PRIORITY}. */
  public static ThreadFactory threads(String name) {
    return new DefaultThreadFactory(name, true, PRIORITY);
  }
}
