package io.granary.common.error;

import io.netty.handler.codec.http.HttpResponseStatus;

/** 404 {@code NoSuchMountpath}: the target has no mountpath at this path. */
public final class MountpathNotFoundException extends ApiException {
  public MountpathNotFoundException(String node, String path) {
    super(HttpResponseStatus.NOT_FOUND, "NoSuchMountpath", "target " + node + " has no mountpath '" + path + "'");
  }
}
