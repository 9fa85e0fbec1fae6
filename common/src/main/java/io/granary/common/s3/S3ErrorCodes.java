package io.granary.common.s3;

import io.granary.common.error.ApiException;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Map;

/**
 * Maps the errors the node throws (native codes, see docs/http-api.md) to the code and status S3 uses for the
 * same condition, so S3 clients see what they would see from S3 and their retry logic works:
 *
 * <table>
 *   <caption>native code to S3 code</caption>
 *   <tr><th>native</th><th>S3</th><th>why</th></tr>
 *   <tr><td>BucketNotFound 404</td><td>NoSuchBucket 404</td><td></td></tr>
 *   <tr><td>ObjectNotFound 404</td><td>NoSuchKey 404</td><td></td></tr>
 *   <tr><td>InvalidObjectName 400</td><td>KeyTooLongError 400 when the name is too long, else InvalidArgument
 *     400</td><td>S3 has no "invalid key" code; Granary refuses some keys S3 takes ({@code ..} segments)</td></tr>
 *   <tr><td>InvalidBucketName 400</td><td>InvalidBucketName 400</td><td></td></tr>
 *   <tr><td>MalformedJSON 400</td><td>InvalidArgument 400</td><td>S3 takes no JSON; an S3 request never causes it
 *     unless an argument is wrong</td></tr>
 *   <tr><td>InvalidRange 416</td><td>InvalidRange 416</td><td>with {@code Content-Range: bytes *&#47;size}</td></tr>
 *   <tr><td>InvalidRange 400 (malformed Range)</td><td>InvalidArgument 400</td><td>S3 ignores a malformed
 *     Range and sends the whole object; a front end wanting that must not call ByteRange.parse with it.
 *     Refusing is kept because serving 1 GiB to a client that asked for 1 KiB hides its bug</td></tr>
 *   <tr><td>BadDigest, IncompleteBody 400</td><td>same</td><td></td></tr>
 *   <tr><td>BucketAlreadyExists 409</td><td>BucketAlreadyOwnedByYou 409</td><td>single-tenant: every bucket is
 *     the caller's</td></tr>
 *   <tr><td>BucketNotEmpty 409</td><td>BucketNotEmpty 409</td><td></td></tr>
 *   <tr><td>TargetOffline, NoTargets, PrimaryUnreachable, ObjectMoving 503</td><td>ServiceUnavailable 503</td><td>SDKs retry
 *     it</td></tr>
 *   <tr><td>Busy 503</td><td>SlowDown 503</td><td>SDKs back off on it (throttling)</td></tr>
 *   <tr><td>InsufficientStorage 507</td><td>InsufficientStorage 507</td><td>S3 has no equivalent; kept as
 *     is</td></tr>
 *   <tr><td>MethodNotAllowed 405</td><td>MethodNotAllowed 405</td><td></td></tr>
 *   <tr><td>NoSuchEndpoint 404</td><td>NotImplemented 501</td><td>in the S3 API every path names a bucket or
 *     key, so "no endpoint" means a sub-resource or operation Granary does not implement ({@code ?acl},
 *     {@code ?tagging}...)</td></tr>
 *   <tr><td>EntityTooLarge 413</td><td>EntityTooLarge 400</td><td>S3 answers it with 400</td></tr>
 *   <tr><td>RequestTimeout 408</td><td>RequestTimeout 400</td><td>S3 answers it with 400</td></tr>
 *   <tr><td>InternalError 500</td><td>InternalError 500</td><td></td></tr>
 * </table>
 *
 * <p>Every other code passes through with its own status: the S3-only ones thrown as {@link S3ApiException}
 * (MalformedXML, InvalidPartOrder...) and those that already are S3 codes (AccessDenied,
 * SignatureDoesNotMatch, InvalidAccessKeyId, NoSuchUpload, InvalidPart, EntityTooSmall, PreconditionFailed,
 * InvalidArgument, InvalidURI...), as well as native codes with no S3 counterpart (ClusterMismatch...).
 */
public final class S3ErrorCodes {
  public static final String NO_SUCH_BUCKET = "NoSuchBucket";
  public static final String NO_SUCH_KEY = "NoSuchKey";
  public static final String INVALID_ARGUMENT = "InvalidArgument";
  public static final String SERVICE_UNAVAILABLE = "ServiceUnavailable";
  public static final String SLOW_DOWN = "SlowDown";
  public static final String NOT_IMPLEMENTED = "NotImplemented";

  private static final HttpResponseStatus BAD_REQUEST = HttpResponseStatus.BAD_REQUEST;

  /** Native codes whose S3 form does not depend on the message or status. */
  private static final Map<String, S3ErrorCode> RENAMED = Map.ofEntries(
      Map.entry("BucketNotFound", new S3ErrorCode(NO_SUCH_BUCKET, HttpResponseStatus.NOT_FOUND)),
      Map.entry("ObjectNotFound", new S3ErrorCode(NO_SUCH_KEY, HttpResponseStatus.NOT_FOUND)),
      Map.entry("InvalidBucketName", new S3ErrorCode("InvalidBucketName", BAD_REQUEST)),
      Map.entry("MalformedJSON", new S3ErrorCode(INVALID_ARGUMENT, BAD_REQUEST)),
      Map.entry("BadDigest", new S3ErrorCode("BadDigest", BAD_REQUEST)),
      Map.entry("IncompleteBody", new S3ErrorCode("IncompleteBody", BAD_REQUEST)),
      Map.entry("BucketAlreadyExists", new S3ErrorCode("BucketAlreadyOwnedByYou", HttpResponseStatus.CONFLICT)),
      Map.entry("BucketNotEmpty", new S3ErrorCode("BucketNotEmpty", HttpResponseStatus.CONFLICT)),
      Map.entry("TargetOffline", new S3ErrorCode(SERVICE_UNAVAILABLE, HttpResponseStatus.SERVICE_UNAVAILABLE)),
      Map.entry("NoTargets", new S3ErrorCode(SERVICE_UNAVAILABLE, HttpResponseStatus.SERVICE_UNAVAILABLE)),
      Map.entry("PrimaryUnreachable", new S3ErrorCode(SERVICE_UNAVAILABLE, HttpResponseStatus.SERVICE_UNAVAILABLE)),
      Map.entry("ObjectMoving", new S3ErrorCode(SERVICE_UNAVAILABLE, HttpResponseStatus.SERVICE_UNAVAILABLE)),
      Map.entry("Busy", new S3ErrorCode(SLOW_DOWN, HttpResponseStatus.SERVICE_UNAVAILABLE)),
      Map.entry("InsufficientStorage", new S3ErrorCode("InsufficientStorage", HttpResponseStatus.INSUFFICIENT_STORAGE)),
      Map.entry("MethodNotAllowed", new S3ErrorCode("MethodNotAllowed", HttpResponseStatus.METHOD_NOT_ALLOWED)),
      Map.entry("NoSuchEndpoint", new S3ErrorCode(NOT_IMPLEMENTED, HttpResponseStatus.NOT_IMPLEMENTED)),
      Map.entry("EntityTooLarge", new S3ErrorCode("EntityTooLarge", BAD_REQUEST)),
      Map.entry("RequestTimeout", new S3ErrorCode("RequestTimeout", BAD_REQUEST)),
      Map.entry("InternalError", new S3ErrorCode("InternalError", HttpResponseStatus.INTERNAL_SERVER_ERROR)));

  private S3ErrorCodes() {}

  /** The S3 code and status for {@code e}. */
  public static S3ErrorCode of(ApiException e) {
    String code = e.code();
    if (e instanceof S3ApiException) {
      return new S3ErrorCode(code, e.status()); // thrown in S3 terms already
    }
    if ("InvalidObjectName".equals(code)) {
      return isTooLong(e.getMessage())
          ? new S3ErrorCode(S3ApiException.KEY_TOO_LONG, BAD_REQUEST)
          : new S3ErrorCode(INVALID_ARGUMENT, BAD_REQUEST);
    }
    if ("InvalidRange".equals(code)) {
      return e.status().code() == HttpResponseStatus.REQUESTED_RANGE_NOT_SATISFIABLE.code()
          ? new S3ErrorCode("InvalidRange", HttpResponseStatus.REQUESTED_RANGE_NOT_SATISFIABLE)
          : new S3ErrorCode(INVALID_ARGUMENT, BAD_REQUEST);
    }
    S3ErrorCode renamed = RENAMED.get(code);
    return renamed != null ? renamed : new S3ErrorCode(code, e.status());
  }

  // ObjectName.problem says "longer than 1024 bytes"; the S3 front end can also throw KeyTooLongError itself
  // (S3Names.requireValidKey), which needs no message matching.
  private static boolean isTooLong(String message) {
    return message != null && message.contains("longer than");
  }
}
