package io.granary.proxy.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.common.api.ApiPaths;
import io.granary.common.control.ControlClient;
import io.granary.common.error.BadRequestException;
import io.granary.common.error.MethodNotAllowedException;
import io.granary.common.error.RouteNotFoundException;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.JsonRequestHandler;
import io.granary.common.http.RequestHandler;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The public job API of a proxy (docs/jobs.md):
 *
 * <pre>
 * POST   /v1/jobs                  start a job: 201 {"id":"..."}
 * GET    /v1/jobs                  all jobs, newest first: {"jobs":[...]}
 * GET    /v1/jobs/ID[?wait=30s]    one job's status; with wait, once it ends or the wait (at most 60s) is over
 * DELETE /v1/jobs/ID               abort: 200 with the status
 * POST   /v1/jobs/ID/retry         a new job over what ID failed to fetch: 201 {"id":"...","retry_of":"ID"}
 * </pre>
 *
 * Handlers only start fan-outs and answer when they complete, so the event loop never waits.
 */
public final class ProxyJobRoutes {
  private static final String JOBS = ApiPaths.JOBS;
  private static final String JOBS_SLASH = ApiPaths.JOBS_SLASH;
  private static final String RETRY = "/retry";

  private final ProxyJobs jobs;

  public ProxyJobRoutes(ProxyJobs jobs) {
    this.jobs = jobs;
  }

  public RequestHandler route(HttpExchange ex) {
    String path = ex.path().raw();
    HttpMethod m = ex.method();
    if (path.equals(JOBS) || path.equals(JOBS_SLASH)) {
      if (m.equals(HttpMethod.POST)) {
        return new JsonRequestHandler() {
          @Override
          protected void handle(HttpExchange e, JsonNode body) {
            PrefetchRequest r = PrefetchRequest.parse(body);
            reply(e, HttpResponseStatus.CREATED, () -> jobs.start(r).thenApply(id -> Map.of("id", id)));
          }
        };
      } else if (m.equals(HttpMethod.GET)) {
        return e -> reply(e, HttpResponseStatus.OK, () -> jobs.list().thenApply(l -> Map.of("jobs", l)));
      }
      throw new MethodNotAllowedException(m, path);
    }
    String rest = ex.path().decodedAfter(JOBS_SLASH);
    if (rest.endsWith(RETRY)) {
      String id = rest.substring(0, rest.length() - RETRY.length());
      if (!m.equals(HttpMethod.POST)) {
        throw new MethodNotAllowedException(m, path);
      }
      return new JsonRequestHandler() { // takes (and ignores) a body, as POSTs may carry one
        @Override
        protected void handle(HttpExchange e, JsonNode body) {
          reply(e, HttpResponseStatus.CREATED, () -> jobs.retry(id));
        }
      };
    }
    if (rest.isEmpty() || rest.contains("/")) {
      throw new RouteNotFoundException(path);
    }
    if (m.equals(HttpMethod.GET)) {
      String wait = ex.queryParam("wait");
      Duration d = wait == null ? null : parseWait(wait);
      return e -> reply(e, HttpResponseStatus.OK, () -> d == null ? jobs.status(rest) : jobs.await(rest, d));
    } else if (m.equals(HttpMethod.DELETE)) {
      return e -> reply(e, HttpResponseStatus.OK, () -> jobs.abort(rest));
    }
    throw new MethodNotAllowedException(m, path);
  }

  /** Answers with what {@code action} completes with; a synchronous throw answers as its error too. */
  private static void reply(HttpExchange ex, HttpResponseStatus status, Supplier<CompletableFuture<?>> action) {
    CompletableFuture<?> f;
    try {
      f = action.get();
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    f.whenComplete((v, err) -> {
      if (err != null) {
        ex.sendError(ControlClient.cause(err));
      } else {
        ex.sendJson(status, v);
      }
    });
  }

  /** {@code 30s}, {@code 500ms}, {@code 2m} or plain seconds; longer than 60s is cut to 60s. */
  static Duration parseWait(String s) {
    try {
      Duration d;
      if (s.endsWith("ms")) {
        d = Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)));
      } else if (s.endsWith("s")) {
        d = Duration.ofSeconds(Long.parseLong(s.substring(0, s.length() - 1)));
      } else if (s.endsWith("m")) {
        d = Duration.ofMinutes(Long.parseLong(s.substring(0, s.length() - 1)));
      } else {
        d = Duration.ofSeconds(Long.parseLong(s));
      }
      if (d.isNegative()) {
        throw new NumberFormatException();
      }
      return d.compareTo(ProxyJobs.MAX_WAIT) > 0 ? ProxyJobs.MAX_WAIT : d;
    } catch (NumberFormatException | ArithmeticException e) {
      throw BadRequestException.invalidArgument("wait must be a duration such as 30s, 500ms or 2m, got '" + s + "'");
    }
  }
}
