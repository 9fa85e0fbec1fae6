package io.granary.proxy.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A kind of job other than prefetch, served by the feature that owns it (rebalance), behind the same
 * {@code /v1/jobs} endpoints: {@link ProxyJobRoutes} hands it the bodies whose {@code kind} is {@link #kind} and the
 * ids that start with {@link #idPrefix}. Methods answer with futures and never block the event loop; a future that
 * fails with an {@code ApiException} answers with that error.
 */
public interface JobKind {
  /** The {@code kind} of a job body this kind starts, e.g. {@code rebalance}. */
  String kind();

  /** What every id of this kind starts with, e.g. {@code rb-}. */
  String idPrefix();

  /** Starts a job from its (checked by the caller to be an object) body; completes with {@code {"id":...}}. */
  CompletableFuture<Map<String, String>> start(JsonNode body);

  /** A job's status; with {@code wait}, once it ends or the wait is over. 404 {@code NoSuchJob} when unknown. */
  CompletableFuture<Object> status(String id, Duration wait);

  /** Aborts a job; completes with its status. */
  CompletableFuture<Object> abort(String id);

  /** Summaries of the jobs of this kind the cluster knows, newest first. */
  CompletableFuture<List<Object>> list();
}
