package io.granary.loader;

/** A condition that stops a run before or instead of loading, with a one-line message meant for the user. */
public final class LoaderException extends RuntimeException {
  public LoaderException(String message) {
    super(message);
  }
}
