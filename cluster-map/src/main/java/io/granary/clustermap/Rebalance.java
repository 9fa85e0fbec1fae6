package io.granary.clustermap;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
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
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Rebalance(long id, State state, Instant started, Instant ended) {
  /** Job ids of rebalances start with this, then the generation: {@code rb-7}. */
  public static final String JOB_PREFIX = "rb-";

  public Rebalance {
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(started, "started");
    if (id < 1) {
      throw new IllegalArgumentException("rebalance id must be >= 1, got " + id);
    }
  }

  /** The rebalance after {@code previous} (null for the first). */
  public static Rebalance next(Rebalance previous, Instant now) {
    return new Rebalance(previous == null ? 1 : previous.id + 1, State.RUNNING, now, null);
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

  public Rebalance ended(State end, Instant now) {
    return new Rebalance(id, end, started, now);
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
