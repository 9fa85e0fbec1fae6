package io.granary.target.validation;

import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.http.Router;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.target.jobs.BucketJobRoutes;
import java.util.List;

/**
 * The target's scrub endpoints, cluster-signed like every target request; proxies aggregate them into the
 * {@code scrub} jobs of {@code /v1/jobs} (docs/protection.md#scrub):
 *
 * <pre>
 * GET  /v1/scrub                             the latest scrub of each bucket on this target
 * POST /v1/scrub?bucket=NAME&amp;provider=P   scrubs the bucket (202 with the report)
 * </pre>
 *
 * Both answer at once on the event loop: the report is in memory and a scrub only gets queued.
 */
public final class ScrubRoutes implements Router {
  /** The path of the endpoints. */
  public static final String PATH = "/v1/scrub";

  private final BucketJobRoutes routes;

  public ScrubRoutes(String nodeId, Scrubs scrubs, ClusterMetadataHolder cluster) {
    this.routes = new BucketJobRoutes(PATH, cluster, () -> new Report(nodeId, scrubs.progress()), scrubs::request);
  }

  /**
   * What {@code GET /v1/scrub} answers.
   *
   * @param target this target's id
   * @param scrubs the latest scrub of each bucket since the target started
   */
  public record Report(String target, List<Scrubs.Progress> scrubs) {
  }

  @Override
  public RequestHandler route(HttpExchange ex) {
    return routes.route(ex);
  }
}
