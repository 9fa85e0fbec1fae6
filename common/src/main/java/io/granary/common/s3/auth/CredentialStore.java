package io.granary.common.s3.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The S3 access keys the proxy accepts: an immutable map from access key to secret, safe to share between threads.
 */
public final class CredentialStore {
  private final Map<String, Credentials> byAccessKey;

  private CredentialStore(Map<String, Credentials> byAccessKey) {
    this.byAccessKey = Map.copyOf(byAccessKey);
  }

  /** A store of {@code credentials}; an access key listed twice is refused. */
  public static CredentialStore of(List<Credentials> credentials) {
    Map<String, Credentials> m = new HashMap<>();
    for (Credentials c : credentials) {
      if (m.putIfAbsent(c.accessKey(), c) != null) {
        throw new IllegalArgumentException("access key " + c.accessKey() + " is listed twice");
      }
    }
    return new CredentialStore(m);
  }

  /**
   * Reads a UTF-8 file of {@code ACCESS_KEY:SECRET_KEY} lines (split at the first ':'); blank lines and lines
   * starting with '#' are skipped, surrounding whitespace is ignored. A bad line fails the whole load with its line
   * number; messages never contain a secret.
   */
  public static CredentialStore load(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    Map<String, Credentials> m = new HashMap<>();
    Map<String, Integer> firstLine = new HashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      int lineNo = i + 1;
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int colon = line.indexOf(':');
      if (colon < 0) {
        throw new IllegalArgumentException(file + " line " + lineNo + ": expected ACCESS_KEY:SECRET_KEY");
      }
      Credentials c;
      try {
        c = new Credentials(line.substring(0, colon), line.substring(colon + 1));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(file + " line " + lineNo + ": " + e.getMessage());
      }
      Integer previous = firstLine.putIfAbsent(c.accessKey(), lineNo);
      if (previous != null) {
        throw new IllegalArgumentException(file + " line " + lineNo + ": access key " + c.accessKey()
            + " already defined on line " + previous);
      }
      m.put(c.accessKey(), c);
    }
    return new CredentialStore(m);
  }

  /** The credentials of {@code accessKey}, if it is known. */
  public Optional<Credentials> find(String accessKey) {
    return Optional.ofNullable(byAccessKey.get(accessKey));
  }

  /** Every access key pair held. */
  public List<Credentials> all() {
    return List.copyOf(byAccessKey.values());
  }

  public int size() {
    return byAccessKey.size();
  }

  @Override
  public String toString() {
    return "CredentialStore[" + byAccessKey.size() + " access keys]";
  }
}
