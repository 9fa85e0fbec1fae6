package io.granary.ec;

/**
 * Fewer than D shards of a D+P code are available, so nothing can be rebuilt: more than P were lost. Callers
 * answer it as "unavailable" (never with partial or wrong bytes).
 */
public final class NotEnoughShardsException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int available;
  private final int required;

  public NotEnoughShardsException(int available, int required, int total) {
    super("cannot reconstruct: " + available + " of " + total + " shards available, " + required
        + " needed (more than " + (total - required) + " lost)");
    this.available = available;
    this.required = required;
  }

  /** How many shards were available. */
  public int available() {
    return available;
  }

  /** How many are needed: the number of data shards. */
  public int required() {
    return required;
  }
}
