package io.granary.cli.local;

import io.granary.common.s3.auth.Credentials;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * The S3 key pair of a local cluster, kept with its data in {@code DATA/s3-keys} (mode 0600, one
 * {@code ACCESS_KEY:SECRET_KEY} line, the format of {@code granary proxy --credentials-file}): a restart over the same
 * data directory keeps the keys every client was configured with. Keys given by flags or environment replace them.
 */
final class LocalKeys {
  static final String FILE = "s3-keys";

  /** Where the keys came from, for the banner. */
  enum Source { GIVEN, KEPT, GENERATED }

  record Resolved(Credentials credentials, Source source, Path file) {}

  private LocalKeys() {}

  /** {@code given} (written to the file) when not null, else the kept pair, else a new pair (written). */
  static Resolved resolve(Path dataDir, Credentials given) throws IOException {
    Path file = dataDir.resolve(FILE);
    if (given != null) {
      write(file, given);
      return new Resolved(given, Source.GIVEN, file);
    }
    try {
      return new Resolved(read(file), Source.KEPT, file);
    } catch (NoSuchFileException e) {
      Credentials fresh = Credentials.generate();
      write(file, fresh);
      return new Resolved(fresh, Source.GENERATED, file);
    }
  }

  private static Credentials read(Path file) throws IOException {
    String line = Files.readString(file, StandardCharsets.UTF_8).strip();
    int colon = line.indexOf(':'); // access keys have no colon; a secret may
    if (colon < 0 || line.contains("\n")) {
      throw new IOException(file + " must hold one line ACCESS_KEY:SECRET_KEY; fix or delete it for new keys");
    }
    try {
      return new Credentials(line.substring(0, colon), line.substring(colon + 1));
    } catch (IllegalArgumentException e) {
      throw new IOException(file + ": " + e.getMessage() + "; fix or delete it for new keys");
    }
  }

  private static void write(Path file, Credentials c) throws IOException {
    PrivateFile.write(file, c.accessKey() + ":" + c.secretKey() + "\n");
  }
}
