package io.granary.proxy.http;

import io.granary.common.control.ControlClient;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.concurrent.Callable;

/** Runs a blocking admin action (it persists and pushes metadata) on the control pool and answers with its result. */
final class AdminCall {
  private AdminCall() {}

  static void run(HttpExchange ex, BoundedExecutor pool, HttpResponseStatus status, Callable<Object> action) {
    pool.submit(action).whenComplete((result, err) -> {
      if (err != null) {
        ex.sendError(ControlClient.cause(err));
      } else if (result == null) {
        ex.sendHead(status, null);
      } else {
        ex.sendJson(status, result);
      }
    });
  }
}
