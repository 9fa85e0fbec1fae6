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
import java.util.ArrayList;
import java.util.List;
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
 * Bodies of another {@link JobKind} and ids with its prefix go to that kind (rebalance: {@code rb-N}).
 *
 * Handlers only start fan-outs and answer when they complete, so the event loop never waits.
 */
public final class ProxyJobRoutes {
  private static final String JOBS = ApiPaths.JOBS;
  private static final String JOBS_SLASH = ApiPaths.JOBS_SLASH;
  private static final String RETRY = "/retry";

  private final ProxyJobs jobs;
  private final List<JobKind> kinds;

  public ProxyJobRoutes(ProxyJobs jobs) {
    this(jobs, List.of());
  }

  /** @param kinds the other kinds of jobs (rebalance), each served by its feature */
  public ProxyJobRoutes(ProxyJobs jobs, List<JobKind> kinds) {
    this.jobs = jobs;
    this.kinds = List.copyOf(kinds);
  }

  private JobKind kindOfBody(JsonNode body) {
    if (body != null && body.isObject() && body.path("kind").isTextual()) {
      for (JobKind k : kinds) {
        if (k.kind().equals(body.get("kind").asText())) {
          return k;
        }
      }
    }
    return null;
  }

  private JobKind kindOfId(String id) {
    for (JobKind k : kinds) {
      if (id.startsWith(k.idPrefix())) {
        return k;
      }
    }
    return null;
  }

  public RequestHandler route(HttpExchange ex) {
    String path = ex.path().raw();
    HttpMethod m = ex.method();
    if (path.equals(JOBS) || path.equals(JOBS_SLASH)) {
      if (m.equals(HttpMethod.POST)) {
        return new JsonRequestHandler() {
          @Override
          protected void handle(HttpExchange e, JsonNode body) {
            JobKind other = kindOfBody(body);
            if (other != null) {
              reply(e, HttpResponseStatus.CREATED, () -> other.start(body));
              return;
            }
            PrefetchRequest r = PrefetchRequest.parse(body);
            reply(e, HttpResponseStatus.CREATED, () -> jobs.start(r).thenApply(id -> Map.of("id", id)));
          }
        };
      } else if (m.equals(HttpMethod.GET)) {
        return e -> reply(e, HttpResponseStatus.OK, this::listAll);
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
    JobKind other = kindOfId(rest);
    if (m.equals(HttpMethod.GET)) {
      String wait = ex.queryParam("wait");
      Duration d = wait == null ? null : parseWait(wait);
      if (other != null) {
        return e -> reply(e, HttpResponseStatus.OK, () -> other.status(rest, d));
      }
      return e -> reply(e, HttpResponseStatus.OK, () -> d == null ? jobs.status(rest) : jobs.await(rest, d));
    } else if (m.equals(HttpMethod.DELETE)) {
      if (other != null) {
        return e -> reply(e, HttpResponseStatus.OK, () -> other.abort(rest));
      }
      return e -> reply(e, HttpResponseStatus.OK, () -> jobs.abort(rest));
    }
    throw new MethodNotAllowedException(m, path);
  }

  /** Every kind's jobs: the other kinds' first (a rebalance in progress matters most), then prefetch jobs. */
  private CompletableFuture<?> listAll() {
    List<CompletableFuture<List<Object>>> parts = new ArrayList<>();
    for (JobKind k : kinds) {
      parts.add(k.list().exceptionally(err -> List.of()));
    }
    CompletableFuture<List<?>> prefetch = jobs.list().thenApply(l -> l);
    return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenCompose(v -> prefetch).thenApply(p -> {
      List<Object> all = new ArrayList<>();
      parts.forEach(f -> all.addAll(f.join()));
      all.addAll(p);
      return Map.of("jobs", all);
    });
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
