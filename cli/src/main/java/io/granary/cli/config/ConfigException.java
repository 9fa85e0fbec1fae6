package io.granary.cli.config;

/** A config file that cannot be used: unreadable, malformed, or with a key the command does not have. One line. */
public final class ConfigException extends Exception {
  private static final long serialVersionUID = 1L;

  public ConfigException(String message) {
    super(message);
  }
}
