package io.granary.common.s3.auth;

import io.granary.common.error.ApiException;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * A request the S3 authentication layer refuses. {@link #code()} is the S3 error code the S3 API answers with
 * (AccessDenied, SignatureDoesNotMatch, ...), so the S3 layer can render it as S3's XML error unchanged.
 * Messages never contain a secret or an expected signature.
 */
public final class S3AuthException extends ApiException {
  public static final String ACCESS_DENIED = "AccessDenied";
  public static final String AUTHORIZATION_HEADER_MALFORMED = "AuthorizationHeaderMalformed";
  public static final String AUTHORIZATION_QUERY_PARAMETERS_ERROR = "AuthorizationQueryParametersError";
  public static final String INVALID_ACCESS_KEY_ID = "InvalidAccessKeyId";
  public static final String SIGNATURE_DOES_NOT_MATCH = "SignatureDoesNotMatch";
  public static final String REQUEST_TIME_TOO_SKEWED = "RequestTimeTooSkewed";
  public static final String INVALID_REQUEST = "InvalidRequest";
  public static final String INVALID_ARGUMENT = "InvalidArgument";
  public static final String INCOMPLETE_BODY = "IncompleteBody";
  public static final String INVALID_CHUNK_SIZE = "InvalidChunkSizeError";
  public static final String MALFORMED_TRAILER = "MalformedTrailerError";
  public static final String MISSING_CONTENT_LENGTH = "MissingContentLength";
  public static final String NOT_IMPLEMENTED = "NotImplemented";

  private S3AuthException(HttpResponseStatus status, String code, String message) {
    super(status, code, message);
  }

  /** 403 AccessDenied. */
  public static S3AuthException accessDenied(String message) {
    return new S3AuthException(HttpResponseStatus.FORBIDDEN, ACCESS_DENIED, message);
  }

  /** 400 AuthorizationHeaderMalformed: the Authorization header or its credential scope cannot be used. */
  public static S3AuthException headerMalformed(String message) {
    return new S3AuthException(HttpResponseStatus.BAD_REQUEST, AUTHORIZATION_HEADER_MALFORMED, message);
  }

  /** 400 AuthorizationQueryParametersError: the X-Amz-* parameters of a presigned URL cannot be used. */
  public static S3AuthException queryMalformed(String message) {
    return new S3AuthException(HttpResponseStatus.BAD_REQUEST, AUTHORIZATION_QUERY_PARAMETERS_ERROR, message);
  }

  /** 403 InvalidAccessKeyId. */
  public static S3AuthException unknownAccessKey(String accessKey) {
    return new S3AuthException(HttpResponseStatus.FORBIDDEN, INVALID_ACCESS_KEY_ID,
        "The AWS Access Key Id you provided does not exist in our records: " + accessKey);
  }

  /** 403 SignatureDoesNotMatch; {@code what} names the signature (request, chunk, trailer), never its value. */
  public static S3AuthException signatureMismatch(String what) {
    return new S3AuthException(HttpResponseStatus.FORBIDDEN, SIGNATURE_DOES_NOT_MATCH,
        "The " + what + " signature we calculated does not match the signature you provided. "
            + "Check your key and signing method.");
  }

  /** 403 RequestTimeTooSkewed. */
  public static S3AuthException tooSkewed(String message) {
    return new S3AuthException(HttpResponseStatus.FORBIDDEN, REQUEST_TIME_TOO_SKEWED, message);
  }

  /** 400 InvalidRequest. */
  public static S3AuthException invalidRequest(String message) {
    return new S3AuthException(HttpResponseStatus.BAD_REQUEST, INVALID_REQUEST, message);
  }

  /** 400 InvalidArgument. */
  public static S3AuthException invalidArgument(String message) {
    return new S3AuthException(HttpResponseStatus.BAD_REQUEST, INVALID_ARGUMENT, message);
  }

  /** 400 IncompleteBody: the aws-chunked body is shorter or longer than it declared. */
  public static S3AuthException incompleteBody(String message) {
    return new S3AuthException(HttpResponseStatus.BAD_REQUEST, INCOMPLETE_BODY, message);
  }

  /** 400 InvalidChunkSizeError: a chunk header of an aws-chunked body is malformed. */
  public static S3AuthException badChunk(String message) {
    return new S3AuthException(HttpResponseStatus.BAD_REQUEST, INVALID_CHUNK_SIZE, message);
  }

  /** 400 MalformedTrailerError: the trailer part of an aws-chunked body is malformed or not declared. */
  public static S3AuthException badTrailer(String message) {
    return new S3AuthException(HttpResponseStatus.BAD_REQUEST, MALFORMED_TRAILER, message);
  }

  /** 411 MissingContentLength: an aws-chunked body without x-amz-decoded-content-length. */
  public static S3AuthException missingDecodedLength() {
    return new S3AuthException(HttpResponseStatus.LENGTH_REQUIRED, MISSING_CONTENT_LENGTH,
        "an aws-chunked body needs the x-amz-decoded-content-length header");
  }

  /** 501 NotImplemented. */
  public static S3AuthException notImplemented(String message) {
    return new S3AuthException(HttpResponseStatus.NOT_IMPLEMENTED, NOT_IMPLEMENTED, message);
  }
}
