package io.granary.target.mirror;

import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.http.Router;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.target.jobs.BucketJobRoutes;
import java.util.List;

/**
 * The target's mirroring endpoints, cluster-signed like every target request; proxies aggregate them into the
 * {@code make-n-copies} jobs of {@code /v1/jobs} (docs/protection.md):
 *
 * <pre>
 * GET  /v1/mirror                             the queue and the latest make-n-copies walk of each bucket
 * POST /v1/mirror?bucket=NAME&amp;provider=P   walks the bucket now (202 with the report)
 * </pre>
 *
 * Both answer at once on the event loop: the report is in memory and a walk only gets asked for.
 */
public final class MirrorRoutes implements Router {
  /** The path of the endpoints. */
  public static final String PATH = "/v1/mirror";

  private final String nodeId;
  private final Mirroring mirroring;
  private final BucketJobRoutes routes;

  public MirrorRoutes(String nodeId, Mirroring mirroring, ClusterMetadataHolder cluster) {
    this.nodeId = nodeId;
    this.mirroring = mirroring;
    this.routes = new BucketJobRoutes(PATH, cluster, this::report, mirroring::makeNCopies);
  }

  /**
   * What {@code GET /v1/mirror} answers.
   *
   * @param target this target's id
   * @param queueDepth objects waiting for copies now (every bucket)
   * @param walks the latest walk of each bucket walked since the target started
   */
  public record Report(String target, int queueDepth, List<MirrorWalks.Progress> walks) {
  }

  Report report() {
    return new Report(nodeId, mirroring.queueDepth(), List.copyOf(mirroring.walks().values()));
  }

  @Override
  public RequestHandler route(HttpExchange ex) {
    return routes.route(ex);
  }
}
