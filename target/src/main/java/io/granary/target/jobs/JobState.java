package io.granary.target.jobs;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** A job's life cycle on one target. Every state but {@link #RUNNING} is final. */
public enum JobState {
  RUNNING,
  /** Every owned object is cached and current. */
  SUCCEEDED,
  /** Some objects failed, or the walk itself did (listing error, placement change, out of space). */
  FAILED,
  /** Stopped on request; objects already cached stay cached. */
  ABORTED;

  @JsonValue
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public boolean finished() {
    return this != RUNNING;
  }
}
