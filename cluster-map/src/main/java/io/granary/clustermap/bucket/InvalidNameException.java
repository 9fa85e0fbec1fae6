package io.granary.clustermap.bucket;

/** A bucket or object name breaks the naming rules; the message says which rule. */
public final class InvalidNameException extends IllegalArgumentException {
  public InvalidNameException(String message) {
    super(message);
  }
}
