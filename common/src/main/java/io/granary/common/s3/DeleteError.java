package io.granary.common.s3;

import io.granary.common.error.ApiException;

/**
 * One object DeleteObjects could not delete: an {@code <Error>} of the DeleteResult.
 *
 * @param key the key as the request sent it
 * @param versionId the version asked for, or {@code null}
 * @param code S3 error code, e.g. {@code AccessDenied}, {@code InternalError}
 * @param message what went wrong
 */
public record DeleteError(String key, String versionId, String code, String message) {

  /** The error for {@code object} that {@code e} stands for, with its S3 code ({@link S3ErrorCodes}). */
  public static DeleteError of(ObjectIdentifier object, ApiException e) {
    return new DeleteError(object.key(), object.versionId(), S3ErrorCodes.of(e).code(), e.getMessage());
  }
}
