package io.granary.common.membership;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.common.control.ControlClient;
import io.granary.common.error.BadRequestException;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.JsonRequestHandler;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Map;

/**
 * {@code PUT /v1/metasync}: the primary pushes {@link ClusterMetadata}. Older versions are ignored (200, so the
 * sender stops retrying); metadata of another cluster is refused with 409 {@code ClusterMismatch}. Applying
 * persists to disk, so it runs on the blocking pool, and so does reading the body into records.
 */
public final class MetasyncHandler extends JsonRequestHandler {
  private final ClusterMetadataHolder holder;
  private final BoundedExecutor pool;

  public MetasyncHandler(ClusterMetadataHolder holder, BoundedExecutor pool) {
    this.holder = holder;
    this.pool = pool;
  }

  @Override
  protected void handle(HttpExchange ex, JsonNode body) {
    if (body == null) {
      throw BadRequestException.invalidArgument("metasync needs a JSON body with 'map' and 'buckets'");
    }
    // Converted on the pool too: a whole cluster's metadata is not small, and the first conversion waits for Jackson
    // to build its deserializers under a lock (a joining target's event loop waited 158 ms there, JFR).
    pool.submit(() -> holder.apply(convert(body, ClusterMetadata.class))).whenComplete((changed, err) -> {
      if (err != null) {
        ex.sendError(ControlClient.cause(err));
      } else {
        ClusterMetadataHolder.Snapshot s = holder.require();
        ex.sendJson(HttpResponseStatus.OK,
            Map.of("mapVersion", s.map().version(), "bucketsVersion", s.buckets().version()));
      }
    });
  }
}
