package io.granary.common.s3;

import java.util.List;
import java.util.Map;

/**
 * Whether an S3 GET or HEAD reads the object itself: its query holds nothing but presigned-URL parameters (SigV4's
 * {@code X-Amz-*}, SigV2's {@code AWSAccessKeyId}, {@code Expires} and {@code Signature}), {@code partNumber} and
 * {@code response-*} overrides. Only such reads may be redirected by a proxy, go to a reader other than the owner,
 * or be sent straight to a target; anything else (ListParts' uploadId, ?acl...) goes the way of its operation.
 */
public final class PlainReads {
  private static final List<String> SIGV2_PARAMS = List.of("AWSAccessKeyId", "Expires", "Signature");

  private PlainReads() {}

  public static boolean test(Map<String, List<String>> query) {
    for (String name : query.keySet()) {
      if (!name.regionMatches(true, 0, "X-Amz-", 0, 6) && !name.equals("partNumber")
          && !name.startsWith("response-") && !SIGV2_PARAMS.contains(name)) {
        return false;
      }
    }
    return true;
  }
}
