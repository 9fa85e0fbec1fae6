package io.granary.proxy.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.common.error.BadRequestException;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.JsonRequestHandler;
import io.granary.common.membership.NodeRegistration;
import io.granary.proxy.membership.ClusterAuthority;
import io.netty.handler.codec.http.HttpResponseStatus;

/** {@code POST /v1/cluster/join} on the primary: registers a node and answers with the cluster metadata. */
final class JoinHandler extends JsonRequestHandler {
  private final ClusterAuthority authority;
  private final BoundedExecutor control;

  JoinHandler(ClusterAuthority authority, BoundedExecutor control) {
    this.authority = authority;
    this.control = control;
  }

  @Override
  protected void handle(HttpExchange ex, JsonNode body) {
    if (body == null || !body.isObject()) {
      throw new BadRequestException(BadRequestException.MALFORMED_JSON,
          "join needs a JSON object with id, role and url");
    }
    NodeRegistration reg = convert(body, NodeRegistration.class);
    AdminCall.run(ex, control, HttpResponseStatus.OK, () -> authority.join(reg));
  }
}
