package io.granary.backend;

import io.granary.backend.gcs.GcsBackend;
import io.granary.backend.s3.S3Backend;
import java.nio.file.Files;
import java.nio.file.Path;

/** Creates the {@link Backend} for a configuration. */
public final class Backends {
  private Backends() {}

  /**
   * Opens a backend: S3 for {@code AWS}, GCS for {@code GCP}. Fails with a clear message (never echoing a secret)
   * when the credentials file is missing or unreadable.
   */
  public static Backend open(BackendConfig config) throws BackendException {
    if (!config.anonymous() && config.credentialsFile() != null) {
      requireReadable(config.credentialsFile());
    }
    return switch (config.provider()) {
      case AWS -> S3Backend.open(config);
      case GCP -> GcsBackend.open(config);
      case AIS -> throw new IllegalArgumentException("ais buckets have no backend");
    };
  }

  /** Checks the file up front so a typo fails at open, naming the path and never the contents. */
  static void requireReadable(Path file) throws BackendException {
    if (!Files.isRegularFile(file)) {
      throw new BackendException(BackendException.Kind.OTHER, 0, "credentials file " + file + " does not exist");
    }
    if (!Files.isReadable(file)) {
      throw new BackendException(BackendException.Kind.OTHER, 0, "credentials file " + file + " is not readable");
    }
  }
}
