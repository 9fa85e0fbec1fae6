package io.granary.target.jobs;

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
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The two endpoints of a per-bucket job whose progress a target keeps in memory (make-n-copies, scrub), which
 * proxies aggregate into {@code /v1/jobs}: {@code GET PATH} answers the report, {@code POST PATH?bucket=&provider=}
 * starts the job on a bucket the cluster has (404 otherwise) and answers 202 with the report. Both on the event
 * loop: the report is in memory and starting only queues work.
 */
public final class BucketJobRoutes implements Router {
  private final String path;
  private final ClusterMetadataHolder cluster;
  private final Supplier<Object> report;
  private final Consumer<BucketProps> start;

  /**
   * @param report what GET answers (JSON)
   * @param start queues the job on a bucket; must not block
   */
  public BucketJobRoutes(String path, ClusterMetadataHolder cluster, Supplier<Object> report,
      Consumer<BucketProps> start) {
    this.path = path;
    this.cluster = cluster;
    this.report = report;
    this.start = start;
  }

  @Override
  public RequestHandler route(HttpExchange ex) {
    String p = ex.path().raw();
    if (!p.equals(path) && !p.equals(path + "/")) {
      throw new MethodNotAllowedException(ex.method(), p);
    }
    if (ex.method().equals(HttpMethod.GET)) {
      return e -> e.sendJson(HttpResponseStatus.OK, report.get());
    } else if (ex.method().equals(HttpMethod.POST)) {
      String name = ex.queryParam("bucket");
      if (name == null || name.isEmpty()) {
        throw BadRequestException.invalidArgument("bucket is required: POST " + path + "?bucket=NAME&provider=P");
      }
      BucketProps b = cluster.requireBucket(new Bucket(Provider.parse(ex.queryParam("provider")), name));
      return e -> {
        start.accept(b);
        e.sendJson(HttpResponseStatus.ACCEPTED, report.get());
      };
    }
    throw new MethodNotAllowedException(ex.method(), p);
  }
}
