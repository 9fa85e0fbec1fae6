package io.granary.target.mirror;

import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.Provider;
import io.granary.common.error.BadRequestException;
import io.granary.common.error.MethodNotAllowedException;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.http.Router;
import io.granary.common.membership.ClusterMetadataHolder;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
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
  private final ClusterMetadataHolder cluster;

  public MirrorRoutes(String nodeId, Mirroring mirroring, ClusterMetadataHolder cluster) {
    this.nodeId = nodeId;
    this.mirroring = mirroring;
    this.cluster = cluster;
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
    String path = ex.path().raw();
    if (!path.equals(PATH) && !path.equals(PATH + "/")) {
      throw new MethodNotAllowedException(ex.method(), path);
    }
    if (ex.method().equals(HttpMethod.GET)) {
      return e -> e.sendJson(HttpResponseStatus.OK, report());
    } else if (ex.method().equals(HttpMethod.POST)) {
      String name = ex.queryParam("bucket");
      if (name == null || name.isEmpty()) {
        throw BadRequestException.invalidArgument("bucket is required: POST " + PATH + "?bucket=NAME&provider=P");
      }
      BucketProps b = cluster.requireBucket(new Bucket(Provider.parse(ex.queryParam("provider")), name));
      return e -> {
        mirroring.makeNCopies(b);
        e.sendJson(HttpResponseStatus.ACCEPTED, report());
      };
    }
    throw new MethodNotAllowedException(ex.method(), path);
  }
}
