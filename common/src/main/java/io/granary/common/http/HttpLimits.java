package io.granary.common.http;

import java.time.Duration;
import java.util.Objects;

/**
 * How long a node's HTTP listener waits for a client, and how many connections it holds (docs/http-api.md,
 * "Timeouts and the connection cap"). The same settings apply to every listener of a node, native and S3 API.
 *
 * @param headTimeout a request head must be complete this long after its first byte (for a new connection: after
 *     the accept), else 408 and close; bounds slowloris
 * @param bodyTimeout a request body that brings no bytes for this long is aborted (408, close): a stalled upload
 *     gives back its work file and space reservation. It is also the window of {@code minBodyRate}.
 * @param idleTimeout a connection with no bytes either way for this long is closed: a kept-alive connection between
 *     requests, or an answer the client stopped reading
 * @param maxConnections connections served at once; beyond it a {@linkplain #reserve() reserve} admits only
 *     requests signed by another node of the cluster, and beyond the reserve a connection is closed at accept
 * @param minBodyRate bytes per second a request body must average over each {@code bodyTimeout} window, else it is
 *     aborted like a stalled one (a slowloris trickle); 0 turns the check off
 * @param sendBuffer each client connection's socket send buffer ({@code SO_SNDBUF}) in bytes; 0 leaves it to the
 *     kernel's autotuning. Not a limit but the one socket setting of the listener: see {@link #DEFAULT_SEND_BUFFER}
 */
public record HttpLimits(Duration headTimeout, Duration bodyTimeout, Duration idleTimeout, int maxConnections,
    long minBodyRate, int sendBuffer) {
  public static final Duration DEFAULT_HEAD_TIMEOUT = Duration.ofSeconds(30);
  public static final Duration DEFAULT_BODY_TIMEOUT = Duration.ofSeconds(60);
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(5);
  /** The connection cap when the open-file limit allows it (see {@link #defaultMaxConnections}). */
  public static final int DEFAULT_MAX_CONNECTIONS = 4096;
  /** As Apache's mod_reqtimeout ({@code MinRate=500}): far below any real upload, far above a slowloris trickle. */
  public static final long DEFAULT_MIN_BODY_RATE = 500;

  /**
   * 128 KiB, as AIStore's default. Measured here (bench/warm-get.sh, one target against nginx on loopback, page
   * cache): 10 MiB GETs ran at 1.10× nginx with the kernel's autotuning and 1.67–1.93× with 128 KiB, while 150 KiB
   * and 1 MiB GETs kept their speed (256 KiB: as fast at 10 MiB, 0.68–0.71× nginx at 150 KiB against 0.86–0.95×).
   * Autotuning grows the buffer to megabytes, and sendfile then fills it far beyond the caches. Across a network
   * a connection carries at most one buffer per round trip (128 KiB at 0.2 ms: 640 MB/s); raise it, or set 0,
   * for few connections over a long path.
   */
  public static final int DEFAULT_SEND_BUFFER = 128 << 10;

  public static final HttpLimits DEFAULTS = new HttpLimits(DEFAULT_HEAD_TIMEOUT, DEFAULT_BODY_TIMEOUT,
      DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_CONNECTIONS, DEFAULT_MIN_BODY_RATE, DEFAULT_SEND_BUFFER);

  /** Limits with the default minimum body rate and send buffer. */
  public HttpLimits(Duration headTimeout, Duration bodyTimeout, Duration idleTimeout, int maxConnections) {
    this(headTimeout, bodyTimeout, idleTimeout, maxConnections, DEFAULT_MIN_BODY_RATE);
  }

  /** Limits with the default send buffer. */
  public HttpLimits(Duration headTimeout, Duration bodyTimeout, Duration idleTimeout, int maxConnections,
      long minBodyRate) {
    this(headTimeout, bodyTimeout, idleTimeout, maxConnections, minBodyRate, DEFAULT_SEND_BUFFER);
  }

  public HttpLimits {
    positive("--head-timeout", headTimeout);
    positive("--body-timeout", bodyTimeout);
    positive("--idle-timeout", idleTimeout);
    if (maxConnections < 1) {
      throw new IllegalArgumentException("--max-connections must be at least 1, got " + maxConnections);
    }
    if (minBodyRate < 0) {
      throw new IllegalArgumentException("--min-body-rate must be 0 (off) or positive, got " + minBodyRate);
    }
    if (sendBuffer < 0 || (sendBuffer > 0 && sendBuffer < 4096)) {
      throw new IllegalArgumentException("--send-buffer must be 0 (the kernel's autotuning) or at least 4KiB, got "
          + sendBuffer);
    }
  }

  /** The bytes a request body must bring in each body-timeout window (0: no minimum). */
  public long minBodyBytesPerWindow() {
    return minBodyRate == 0 ? 0 : Math.max(1, minBodyRate * bodyTimeout.toMillis() / 1000);
  }

  /**
   * Connections beyond {@link #maxConnections} that are still accepted so that the cluster's own traffic (a proxy
   * relaying to a target, health checks, joins, rebalance) is never starved by clients: a sixteenth of the cap, at
   * least 32. Each is served only while its requests carry a valid cluster signature.
   */
  public int reserve() {
    return Math.max(32, maxConnections / 16);
  }

  /**
   * The default cap for a process that may open {@code maxFileDescriptors} files: {@value #DEFAULT_MAX_CONNECTIONS},
   * or half the limit when that is lower (objects, RocksDB and connections to other nodes need the other half).
   *
   * @param maxFileDescriptors the process's open-file limit, or a value &lt;= 0 when unknown
   */
  public static int defaultMaxConnections(long maxFileDescriptors) {
    if (maxFileDescriptors <= 0) {
      return DEFAULT_MAX_CONNECTIONS;
    }
    return (int) Math.max(1, Math.min(DEFAULT_MAX_CONNECTIONS, maxFileDescriptors / 2));
  }

  /**
   * The settings as a node logs them at start-up:
   * {@code head=30s body=60s min-body-rate=500B/s idle=300s max-connections=4096+256 send-buffer=131072}.
   */
  public String describe() {
    return "head=" + seconds(headTimeout) + " body=" + seconds(bodyTimeout) + " min-body-rate=" + minBodyRate
        + "B/s idle=" + seconds(idleTimeout) + " max-connections=" + maxConnections + "+" + reserve()
        + " send-buffer=" + (sendBuffer == 0 ? "auto" : sendBuffer);
  }

  private static String seconds(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
  }

  private static void positive(String flag, Duration d) {
    Objects.requireNonNull(d, flag);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(flag + " must be positive, got " + d.toMillis() + "ms");
    }
    if (d.toMillis() == 0) {
      throw new IllegalArgumentException(flag + " must be at least 1ms, got " + d);
    }
  }
}
