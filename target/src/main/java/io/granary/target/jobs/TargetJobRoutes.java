package io.granary.target.jobs;

import io.granary.common.error.NoSuchJobException;
import com.fasterxml.jackson.core.JacksonException;
import io.granary.clustermap.ClusterJson;
import io.granary.common.api.ApiPaths;
import io.granary.common.error.BadRequestException;
import io.granary.common.error.MethodNotAllowedException;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.http.SmallBodyHandler;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;

/**
 * The target's internal job endpoints, called by proxies (cluster-signed like every target request):
 *
 * <pre>
 * POST   /v1/jobs        start a job: {@link PrefetchSpec}; 201 with this target's {@link JobSnapshot}
 * GET    /v1/jobs        every job here, without failure lists
 * GET    /v1/jobs/ID     one job's snapshot; 404 NoSuchJob
 * DELETE /v1/jobs/ID     abort; 200 with the snapshot; 404 NoSuchJob
 * </pre>
 *
 * All of it is in-memory and quick, so it runs on the event loop.
 */
public final class TargetJobRoutes {
  private static final String JOBS = ApiPaths.JOBS;
  private static final String JOBS_SLASH = ApiPaths.JOBS_SLASH;
  /** Larger than the proxy's 1 MiB: a retry sends the failed names of every target at once. */
  static final int MAX_SPEC_BYTES = 8 * 1024 * 1024;

  private final TargetJobs jobs;

  public TargetJobRoutes(TargetJobs jobs) {
    this.jobs = jobs;
  }

  public RequestHandler route(HttpExchange ex) {
    String path = ex.path().raw();
    HttpMethod m = ex.method();
    if (path.equals(JOBS) || path.equals(JOBS_SLASH)) {
      if (m.equals(HttpMethod.POST)) {
        return new StartHandler();
      } else if (m.equals(HttpMethod.GET)) {
        return e -> e.sendJson(HttpResponseStatus.OK, jobs.list());
      }
    } else {
      String id = ex.path().decodedAfter(JOBS_SLASH);
      if (m.equals(HttpMethod.GET)) {
        return e -> e.sendJson(HttpResponseStatus.OK, jobs.get(id).orElseThrow(() -> new NoSuchJobException(id)));
      } else if (m.equals(HttpMethod.DELETE)) {
        return e -> e.sendJson(HttpResponseStatus.OK, jobs.abort(id).orElseThrow(() -> new NoSuchJobException(id)));
      }
    }
    throw new MethodNotAllowedException(m, path);
  }

  private final class StartHandler extends SmallBodyHandler {
    StartHandler() {
      super(MAX_SPEC_BYTES);
    }

    @Override
    protected void handle(HttpExchange ex, byte[] body) {
      PrefetchSpec spec;
      try {
        spec = ClusterJson.mapper().readValue(body, PrefetchSpec.class);
      } catch (JacksonException e) {
        throw new BadRequestException(BadRequestException.MALFORMED_JSON, "bad job spec: " + e.getOriginalMessage());
      } catch (IOException e) {
        throw new BadRequestException(BadRequestException.MALFORMED_JSON, "bad job spec: " + e);
      }
      ex.sendJson(HttpResponseStatus.CREATED, jobs.start(spec));
    }
  }
}
