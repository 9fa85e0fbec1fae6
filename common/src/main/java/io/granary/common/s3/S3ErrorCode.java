package io.granary.common.s3;

import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * An S3 error code and the HTTP status S3 answers it with.
 *
 * @param code e.g. {@code NoSuchKey}
 * @param status e.g. 404
 */
public record S3ErrorCode(String code, HttpResponseStatus status) {
}
