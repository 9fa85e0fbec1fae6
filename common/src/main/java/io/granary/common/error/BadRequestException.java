package io.granary.common.error;

import io.netty.handler.codec.http.HttpResponseStatus;

/** 400: the request itself is malformed (bad name, bad JSON, bad header, bad query). */
public final class BadRequestException extends ApiException {
  public static final String INVALID_ARGUMENT = "InvalidArgument";
  public static final String INVALID_OBJECT_NAME = "InvalidObjectName";
  public static final String INVALID_BUCKET_NAME = "InvalidBucketName";
  public static final String MALFORMED_JSON = "MalformedJSON";
  public static final String INVALID_URI = "InvalidURI";

  public BadRequestException(String code, String message) {
    super(HttpResponseStatus.BAD_REQUEST, code, message);
  }

  public static BadRequestException invalidArgument(String message) {
    return new BadRequestException(INVALID_ARGUMENT, message);
  }
}
