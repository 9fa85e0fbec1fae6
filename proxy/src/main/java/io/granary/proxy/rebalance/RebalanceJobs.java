package io.granary.proxy.rebalance;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Rebalance;
import io.granary.common.control.ControlClient;
import io.granary.common.error.BadRequestException;
import io.granary.common.error.NoSuchJobException;
import io.granary.common.error.RemoteApiException;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.proxy.jobs.JobKind;
import io.granary.proxy.jobs.ProxyJobs;
import io.granary.proxy.membership.ClusterAuthority;
import io.granary.proxy.membership.PrimaryRole;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Rebalance as a job behind {@code /v1/jobs}: {@code {"kind":"rebalance"}} starts one (on the primary; other proxies
 * forward), {@code rb-N} is its id, its status sums what the targets report, and aborting stops every target's
 * walk. Any proxy answers for status: targets hold the progress.
 */
public final class RebalanceJobs implements JobKind {
  private final ClusterMetadataHolder cluster;
  private final PrimaryRole role;
  private final ControlClient client;
  private final BoundedExecutor control;
  private final ScheduledExecutorService timer;
  private final TargetProgress targets;

  public RebalanceJobs(ClusterMetadataHolder cluster, PrimaryRole role, ControlClient client, BoundedExecutor control,
      ScheduledExecutorService timer) {
    this.cluster = cluster;
    this.role = role;
    this.client = client;
    this.control = control;
    this.timer = timer;
    this.targets = new TargetProgress(client);
  }

  @Override
  public String kind() {
    return "rebalance";
  }

  @Override
  public String idPrefix() {
    return Rebalance.JOB_PREFIX;
  }

  @Override
  public CompletableFuture<Map<String, String>> start(JsonNode body) {
    for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!f.equals("kind")) {
        throw BadRequestException.invalidArgument("unknown field '" + f + "' for a rebalance; the body is "
            + "{\"kind\":\"rebalance\"}");
      }
    }
    PrimaryRole.Term term = role.term();
    ClusterAuthority authority = term == null ? null : term.authority();
    if (authority == null) {
      return onPrimary("POST", "/v1/jobs", body).thenApply(m -> Map.of("id", String.valueOf(m.get("id"))));
    }
    return control.submit(() -> Map.of("id", authority.startRebalance().map().rebalance().jobId()));
  }

  @Override
  public CompletableFuture<Object> status(String id, Duration wait) {
    long n = idOf(id);
    CompletableFuture<RebalanceStatus> s = wait == null ? status(n)
        : ProxyJobs.awaitEnd(() -> status(n), RebalanceStatus::ongoing, wait, timer);
    return s.thenApply(x -> x);
  }

  @Override
  public CompletableFuture<Object> abort(String id) {
    long n = idOf(id);
    PrimaryRole.Term term = role.term();
    ClusterAuthority authority = term == null ? null : term.authority();
    CompletableFuture<?> done = authority == null ? onPrimary("DELETE", "/v1/jobs/" + id, null)
        : control.submit(() -> authority.abortRebalance(n));
    return done.thenCompose(v -> status(n)).thenApply(s -> (Object) s);
  }

  @Override
  public CompletableFuture<List<Object>> list() {
    Rebalance r = cluster.require().map().rebalance();
    if (r == null) {
      return CompletableFuture.completedFuture(List.of());
    }
    return status(r.id()).thenApply(s -> List.of(s));
  }

  /** The status of rebalance {@code n} now. */
  CompletableFuture<RebalanceStatus> status(long n) {
    ClusterMap map = cluster.require().map();
    Rebalance latest = map.rebalance();
    if (latest == null || n > latest.id()) {
      return CompletableFuture.failedFuture(new NoSuchJobException(Rebalance.JOB_PREFIX + n));
    }
    if (n < latest.id()) {
      return CompletableFuture.completedFuture(RebalanceStatus.superseded(n, latest));
    }
    return targets.ask(map).thenApply(answers -> RebalanceStatus.of(RebalanceView.of(map, answers)));
  }

  private static long idOf(String id) {
    long n = Rebalance.idOf(id);
    if (n < 1) {
      throw new NoSuchJobException(id);
    }
    return n;
  }

  /** Sends a change to the primary and passes its answer (or its error) on. */
  private CompletableFuture<Map<?, ?>> onPrimary(String method, String path, Object body) {
    String primaryUrl = role.primaryUrl();
    if (primaryUrl == null) {
      return CompletableFuture.failedFuture(new ServiceUnavailableException(
          ServiceUnavailableException.PRIMARY_UNREACHABLE, "no primary proxy is known yet (an election is on)", 2));
    }
    return client.send(method, primaryUrl + path, body, Map.class).handle((m, err) -> {
      if (err == null) {
        return (Map<?, ?>) m;
      }
      Throwable cause = ControlClient.cause(err);
      if (cause instanceof ControlClient.RemoteCallException rce) {
        throw new RemoteApiException(rce.status(), rce.error().code(), rce.error().message());
      }
      throw new ServiceUnavailableException(ServiceUnavailableException.PRIMARY_UNREACHABLE,
          "the primary proxy at " + primaryUrl + " did not answer: " + cause, 5);
    });
  }
}
