package io.granary.target.jobs;

import io.granary.common.error.ApiException;
import io.netty.handler.codec.http.HttpResponseStatus;

/** 404 {@code NoSuchJob}: this target does not know the job (never started here, forgotten, or lost on restart). */
final class NoSuchJobException extends ApiException {
  NoSuchJobException(String id) {
    super(HttpResponseStatus.NOT_FOUND, "NoSuchJob", "no job '" + id + "'");
  }
}
