package io.granary.proxy.jobs;

import io.granary.common.error.ApiException;
import io.netty.handler.codec.http.HttpResponseStatus;

/** 404 {@code NoSuchJob}: no target knows this job id. */
final class NoSuchJobException extends ApiException {
  NoSuchJobException(String id) {
    super(HttpResponseStatus.NOT_FOUND, "NoSuchJob", "no job '" + id + "'");
  }
}
