package io.granary.common.s3;

import io.granary.common.error.ApiException;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An error that exists only in the S3 API (malformed XML, parts out of order, a key too long...), thrown with the
 * S3 code itself so that {@link S3ErrorCodes} passes it through unchanged. {@link #details()} become extra
 * elements of the Error document, e.g. {@code <ArgumentName>}.
 */
public final class S3ApiException extends ApiException {
  public static final String MALFORMED_XML = "MalformedXML";
  public static final String MAX_MESSAGE_LENGTH_EXCEEDED = "MaxMessageLengthExceeded";
  public static final String INVALID_PART_ORDER = "InvalidPartOrder";
  public static final String KEY_TOO_LONG = "KeyTooLongError";
  public static final String INVALID_ARGUMENT = "InvalidArgument";

  private final Map<String, String> details;

  public S3ApiException(HttpResponseStatus status, String code, String message) {
    this(status, code, message, Map.of());
  }

  /** {@code details}: element name to text, written in iteration order after Code and Message. */
  public S3ApiException(HttpResponseStatus status, String code, String message, Map<String, String> details) {
    super(status, code, message);
    this.details = details.isEmpty() ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(details));
  }

  /** Extra Error-document elements, in order. */
  public Map<String, String> details() {
    return details;
  }

  /** 400 MalformedXML: the body is not XML, or not the document the operation takes. */
  public static S3ApiException malformedXml(String message) {
    return new S3ApiException(HttpResponseStatus.BAD_REQUEST, MALFORMED_XML, message);
  }

  /** 400 MaxMessageLengthExceeded: an XML body over the size the operation accepts. */
  public static S3ApiException tooLarge(long limit) {
    return new S3ApiException(HttpResponseStatus.BAD_REQUEST, MAX_MESSAGE_LENGTH_EXCEEDED,
        "the request body is larger than the " + limit + " bytes this operation accepts");
  }

  /** 400 InvalidPartOrder: CompleteMultipartUpload parts not in strictly ascending part-number order. */
  public static S3ApiException invalidPartOrder(String message) {
    return new S3ApiException(HttpResponseStatus.BAD_REQUEST, INVALID_PART_ORDER, message);
  }

  /** 400 InvalidArgument naming the argument, as S3 does with {@code <ArgumentName>} and {@code <ArgumentValue>}. */
  public static S3ApiException invalidArgument(String message, String argumentName, String argumentValue) {
    Map<String, String> d = new LinkedHashMap<>();
    d.put("ArgumentName", argumentName);
    if (argumentValue != null) {
      d.put("ArgumentValue", argumentValue);
    }
    return new S3ApiException(HttpResponseStatus.BAD_REQUEST, INVALID_ARGUMENT, message, d);
  }
}
