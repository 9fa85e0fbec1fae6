package io.granary.common.api;

/** Paths of the native API (see docs/http-api.md). */
public final class ApiPaths {
  public static final String HEALTH = "/v1/health";
  /** Readiness: 200 when the node can serve clients, 503 with the reasons when not (docs/http-api.md). */
  public static final String READY = "/v1/health/ready";
  public static final String CLUSTER_MAP = "/v1/cluster/map";
  public static final String CLUSTER_JOIN = "/v1/cluster/join";
  public static final String CLUSTER_NODES = "/v1/cluster/nodes/";
  public static final String METASYNC = "/v1/metasync";
  public static final String BUCKETS = "/v1/buckets";
  public static final String BUCKETS_SLASH = "/v1/buckets/";
  public static final String OBJECTS = "/v1/objects/";
  public static final String JOBS = "/v1/jobs";
  public static final String JOBS_SLASH = "/v1/jobs/";
  /** A target's mountpaths (GET, POST), and one of them by its URL-encoded path (DELETE). */
  public static final String MOUNTPATHS = "/v1/mountpaths";
  public static final String MOUNTPATHS_SLASH = "/v1/mountpaths/";
  /** A node's mountpaths through a proxy: {@code /v1/cluster/nodes/ID/mountpaths[/PATH]}. */
  public static final String NODE_MOUNTPATHS = "/mountpaths";
  /** Prometheus metrics (not under /v1: the path scrapers expect). */
  public static final String METRICS = "/metrics";

  private ApiPaths() {}

  /** Whether {@code rawPath} is a job endpoint ({@code /v1/jobs} or below it), on proxies and targets alike. */
  public static boolean isJobs(String rawPath) {
    return rawPath.equals(JOBS) || rawPath.startsWith(JOBS_SLASH);
  }
}
