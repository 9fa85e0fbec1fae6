package io.granary.common.error;

import io.netty.handler.codec.http.HttpResponseStatus;

/** 404: no node of that id in the cluster map (never was, or it left: a decommissioned node's id is retired). */
public final class NodeNotFoundException extends ApiException {
  public NodeNotFoundException(String id) {
    super(HttpResponseStatus.NOT_FOUND, "NodeNotFound", "no node '" + id + "' in the cluster map");
  }
}
