package io.granary.it.support;

/** Closes what a test class opened in {@code @BeforeAll}, whichever of it got opened before a failure. */
public final class Resources {
  private Resources() {}

  /** Closes each non-null resource in order; the first failure is thrown after all were tried. */
  public static void closeAll(AutoCloseable... resources) {
    RuntimeException first = null;
    for (AutoCloseable r : resources) {
      if (r == null) {
        continue;
      }
      try {
        r.close();
      } catch (Exception e) {
        if (first == null) {
          first = new IllegalStateException("closing " + r, e);
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
