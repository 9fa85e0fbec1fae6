package io.granary.common.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.clustermap.bucket.InvalidNameException;
import io.granary.clustermap.bucket.ObjectName;
import io.granary.common.error.ApiException;
import io.granary.common.error.BadRequestException;
import io.granary.common.error.BucketNotFoundException;
import io.granary.common.error.ChecksumMismatchException;
import io.granary.common.error.ConflictException;
import io.granary.common.error.IncompleteBodyException;
import io.granary.common.error.InsufficientStorageException;
import io.granary.common.error.InternalErrorException;
import io.granary.common.error.MethodNotAllowedException;
import io.granary.common.error.ObjectNotFoundException;
import io.granary.common.error.PayloadTooLargeException;
import io.granary.common.error.RangeNotSatisfiableException;
import io.granary.common.error.RequestTimeoutException;
import io.granary.common.error.RouteNotFoundException;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.http.ByteRange;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

class S3ErrorCodesTest {

  static Stream<Arguments> nativeErrors() {
    return Stream.of(
        Arguments.of(new BucketNotFoundException("b"), "NoSuchBucket", 404),
        Arguments.of(new ObjectNotFoundException("b", "k"), "NoSuchKey", 404),
        Arguments.of(new BadRequestException(BadRequestException.INVALID_BUCKET_NAME, "x"), "InvalidBucketName", 400),
        Arguments.of(new BadRequestException(BadRequestException.MALFORMED_JSON, "x"), "InvalidArgument", 400),
        Arguments.of(BadRequestException.invalidArgument("x"), "InvalidArgument", 400),
        Arguments.of(new BadRequestException(BadRequestException.INVALID_URI, "x"), "InvalidURI", 400),
        Arguments.of(new RangeNotSatisfiableException("past the end", 10), "InvalidRange", 416),
        Arguments.of(new ChecksumMismatchException("md5", "a", "b"), "BadDigest", 400),
        Arguments.of(new IncompleteBodyException(1, 2), "IncompleteBody", 400),
        Arguments.of(new ConflictException(ConflictException.BUCKET_EXISTS, "x"), "BucketAlreadyOwnedByYou", 409),
        Arguments.of(new ConflictException(ConflictException.BUCKET_NOT_EMPTY, "x"), "BucketNotEmpty", 409),
        Arguments.of(new ServiceUnavailableException(ServiceUnavailableException.TARGET_OFFLINE, "x", 1), "ServiceUnavailable", 503),
        Arguments.of(new ServiceUnavailableException(ServiceUnavailableException.NO_TARGETS, "x", 1), "ServiceUnavailable", 503),
        Arguments.of(new ServiceUnavailableException(ServiceUnavailableException.PRIMARY_UNREACHABLE, "x", 1), "ServiceUnavailable", 503),
        Arguments.of(new ServiceUnavailableException(ServiceUnavailableException.BUSY, "x", 1), "SlowDown", 503),
        Arguments.of(new InsufficientStorageException("x"), "InsufficientStorage", 507),
        Arguments.of(new MethodNotAllowedException(HttpMethod.PATCH, "/b"), "MethodNotAllowed", 405),
        Arguments.of(new RouteNotFoundException("/b?acl"), "NotImplemented", 501),
        Arguments.of(new PayloadTooLargeException("x"), "EntityTooLarge", 400),
        Arguments.of(new RequestTimeoutException("x"), "RequestTimeout", 400),
        Arguments.of(new InternalErrorException("x", null), "InternalError", 500),
        // no S3 counterpart: passes through
        Arguments.of(new ConflictException(ConflictException.CLUSTER_MISMATCH, "x"), "ClusterMismatch", 409));
  }

  @ParameterizedTest
  @MethodSource("nativeErrors")
  void nativeCodes_becomeS3Codes(ApiException e, String code, int status) {
    S3ErrorCode s3 = S3ErrorCodes.of(e);

    assertThat(s3.code()).isEqualTo(code);
    assertThat(s3.status().code()).isEqualTo(status);
  }

  @Test
  void invalidObjectName_tooLong_isKeyTooLongError() {
    String problem;
    try {
      ObjectName.requireValid("k".repeat(2000));
      throw new AssertionError("expected a refusal");
    } catch (InvalidNameException e) {
      problem = e.getMessage();
    }

    S3ErrorCode s3 = S3ErrorCodes.of(new BadRequestException(BadRequestException.INVALID_OBJECT_NAME, problem));

    assertThat(s3).isEqualTo(new S3ErrorCode("KeyTooLongError", HttpResponseStatus.BAD_REQUEST));
  }

  @Test
  void invalidObjectName_otherwise_isInvalidArgument() {
    S3ErrorCode s3 = S3ErrorCodes.of(new BadRequestException(BadRequestException.INVALID_OBJECT_NAME,
        "invalid object name 'a/../b': must not contain '.' or '..' path segments"));

    assertThat(s3).isEqualTo(new S3ErrorCode("InvalidArgument", HttpResponseStatus.BAD_REQUEST));
  }

  @Test
  void malformedRange_isInvalidArgument_unsatisfiableRange_isInvalidRange() {
    ApiException malformed = catchApi(() -> ByteRange.parse("bytes=abc", 100));
    ApiException unsatisfiable = catchApi(() -> ByteRange.parse("bytes=200-", 100));

    assertThat(S3ErrorCodes.of(malformed)).isEqualTo(new S3ErrorCode("InvalidArgument", HttpResponseStatus.BAD_REQUEST));
    assertThat(S3ErrorCodes.of(unsatisfiable).code()).isEqualTo("InvalidRange");
    assertThat(S3ErrorCodes.of(unsatisfiable).status().code()).isEqualTo(416);
  }

  @Test
  void s3Codes_passThroughWithTheirStatus() {
    assertThat(S3ErrorCodes.of(S3ApiException.malformedXml("x"))).isEqualTo(new S3ErrorCode("MalformedXML", HttpResponseStatus.BAD_REQUEST));
    assertThat(S3ErrorCodes.of(new S3ApiException(HttpResponseStatus.FORBIDDEN, "AccessDenied", "x")))
        .isEqualTo(new S3ErrorCode("AccessDenied", HttpResponseStatus.FORBIDDEN));
    assertThat(S3ErrorCodes.of(new S3ApiException(HttpResponseStatus.FORBIDDEN, "SignatureDoesNotMatch", "x")).code())
        .isEqualTo("SignatureDoesNotMatch");
    assertThat(S3ErrorCodes.of(new S3ApiException(HttpResponseStatus.NOT_FOUND, "NoSuchUpload", "x")).status().code())
        .isEqualTo(404);
    assertThat(S3ErrorCodes.of(new S3ApiException(HttpResponseStatus.PRECONDITION_FAILED, "PreconditionFailed", "x"))
        .status().code()).isEqualTo(412);
    // An S3ApiException is never renamed, even when its code collides with a native one.
    assertThat(S3ErrorCodes.of(new S3ApiException(HttpResponseStatus.SERVICE_UNAVAILABLE, "Busy", "x")).code())
        .isEqualTo("Busy");
  }

  @Test
  void unknownCodes_passThrough() {
    ApiException e = new ApiException(HttpResponseStatus.CONFLICT, "SomethingNew", "x") { };

    assertThat(S3ErrorCodes.of(e)).isEqualTo(new S3ErrorCode("SomethingNew", HttpResponseStatus.CONFLICT));
  }

  private static ApiException catchApi(Runnable r) {
    try {
      r.run();
    } catch (ApiException e) {
      return e;
    }
    throw new AssertionError("expected an ApiException");
  }
}
