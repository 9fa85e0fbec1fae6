package io.granary.common.jvm;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * Has the JVM give freed C heap back to the system every few seconds ({@code malloc_trim}). glibc keeps what the
 * JIT compilers, RocksDB and the JDK free, so a node's resident memory stays at its peak long after a load. The C2
 * compiler alone takes 15–25 MiB while a new load's code is compiled. Measured with bench/footprint.sh (default local
 * cluster): 20 s after a load the nodes held 554 MiB with trimming and 639 MiB without.
 *
 * <p>The flag is in JDK 17 updates from the one it was backported to, and in 22 and later. A JVM that does not know it
 * refuses to start, so the option is given only when this JVM knows it (the launcher starts nodes with its own JDK).
 */
public final class NativeHeapTrim {
  static final String FLAG = "TrimNativeHeapInterval";
  /** Milliseconds between trims: cheap (one call on a thread of its own), and prompt after a load. */
  static final int INTERVAL_MS = 5000;

  /** The option, when this JVM has the flag. */
  public static List<String> jvmOptions() {
    try {
      ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).getVMOption(FLAG);
      return List.of("-XX:" + FLAG + "=" + INTERVAL_MS);
    } catch (IllegalArgumentException | LinkageError e) {
      return List.of(); // no such flag here, or no jdk.management module to ask
    }
  }

  private NativeHeapTrim() {}
}
