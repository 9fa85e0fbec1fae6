package io.granary.common.error;

import io.netty.handler.codec.http.HttpResponseStatus;

/** 404 {@code NoSuchJob}: no node knows this job id (proxies and targets alike answer it). */
public final class NoSuchJobException extends ApiException {
  public NoSuchJobException(String id) {
    super(HttpResponseStatus.NOT_FOUND, "NoSuchJob", "no job '" + id + "'");
  }
}
