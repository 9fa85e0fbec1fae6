package io.granary.clustermap;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonValue;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;

/**
 * The cluster-wide rebalance the map asks for (AIStore's RMD). The primary starts a new one, with the next id, in
 * the same map version as every change of placement (a target joins, leaves placement, returns, or changes
 * weight), and on request. Every target moves what it holds to the owners of the map that carries it, and of any
 * newer map: a newer rebalance supersedes an older one. Until the rebalance is {@link State#FINISHED}, objects may
 * still be on a previous owner, so owners look there before answering 404 (get-from-neighbor).
 *
 * @param id generation, 1 for the first rebalance of a cluster, one more for each new one
 * @param state running until every target has moved what it holds; finished or aborted after
 * @param started when the primary started it
 * @param ended when it finished or was aborted; null while running
 * @param attempt 1 for a rebalance a change (or an operator) started; one more for each automatic retry of a
 *     failed one (the primary starts the retry as the next rebalance, under the newest map)
 * @param lastError why the latest failed attempt of this chain failed ({@code rb-N: ...}); null when none failed
 * @param nextAttempt while this attempt is failed and a retry is scheduled: when the primary starts it; else null
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Rebalance(long id, State state, Instant started, Instant ended, int attempt, String lastError,
    Instant nextAttempt) {
  /** Job ids of rebalances start with this, then the generation: {@code rb-7}. */
  public static final String JOB_PREFIX = "rb-";

  public Rebalance {
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(started, "started");
    if (id < 1) {
      throw new IllegalArgumentException("rebalance id must be >= 1, got " + id);
    }
    if (attempt < 1) {
      throw new IllegalArgumentException("rebalance attempt must be >= 1, got " + attempt);
    }
  }

  /** From JSON: {@code attempt} is absent in maps written before retries existed, a first attempt. */
  @JsonCreator
  static Rebalance fromJson(@JsonProperty("id") long id, @JsonProperty("state") State state,
      @JsonProperty("started") Instant started, @JsonProperty("ended") Instant ended,
      @JsonProperty("attempt") Integer attempt, @JsonProperty("lastError") String lastError,
      @JsonProperty("nextAttempt") Instant nextAttempt) {
    return new Rebalance(id, state, started, ended, attempt == null ? 1 : attempt, lastError, nextAttempt);
  }

  /** A first attempt, as maps before retries existed held them. */
  public Rebalance(long id, State state, Instant started, Instant ended) {
    this(id, state, started, ended, 1, null, null);
  }

  /** The rebalance after {@code previous} (null for the first): a first attempt. */
  public static Rebalance next(Rebalance previous, Instant now) {
    return new Rebalance(previous == null ? 1 : previous.id + 1, State.RUNNING, now, null);
  }

  /**
   * The automatic retry of this failed rebalance: the next id (so every target walks everything again, under the
   * map that carries it), one more attempt, the same last error.
   */
  public Rebalance retry(Instant now) {
    return new Rebalance(id + 1, State.RUNNING, now, null, attempt + 1, lastError, null);
  }

  /**
   * This attempt, found failed with {@code error}: still running in the map (its objects may be misplaced, so reads
   * keep looking on the holders), retried at {@code nextAttempt}, or not automatically when that is null.
   */
  public Rebalance failed(String error, Instant nextAttempt) {
    return new Rebalance(id, state, started, ended, attempt, error, nextAttempt);
  }

  /** The job id clients see: {@code rb-ID}. */
  @JsonIgnore
  public String jobId() {
    return JOB_PREFIX + id;
  }

  /** The generation in a job id, or -1 when {@code jobId} is not a rebalance's. */
  public static long idOf(String jobId) {
    if (jobId == null || !jobId.startsWith(JOB_PREFIX)) {
      return -1;
    }
    try {
      long id = Long.parseLong(jobId.substring(JOB_PREFIX.length()));
      return id >= 1 ? id : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  @JsonIgnore
  public boolean running() {
    return state == State.RUNNING;
  }

  /** Finished or aborted now: a scheduled retry is dropped with it. */
  public Rebalance ended(State end, Instant now) {
    return new Rebalance(id, end, started, now, attempt, lastError, null);
  }

  /** Where a rebalance is. */
  public enum State {
    RUNNING,
    /** Every target reported it holds nothing misplaced. */
    FINISHED,
    /** Stopped on request: objects may stay on previous owners (reads still find them) until the next rebalance. */
    ABORTED;

    @JsonValue
    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    static State parse(String s) {
      for (State st : values()) {
        if (st.wireName().equalsIgnoreCase(s)) {
          return st;
        }
      }
      throw new IllegalArgumentException("unknown rebalance state '" + s + "'");
    }
  }
}
