package io.granary.common.s3;

import io.granary.clustermap.acl.CannedAcl;
import io.granary.common.error.NotImplementedException;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.Locale;
import java.util.Map;

/**
 * Reads the ACL an S3 request asks for: the {@code x-amz-acl} canned ACL. Granary keeps only {@code private} and
 * {@code public-read}; every other way of saying an ACL is refused before anything changes, so a client never
 * believes it set an ACL that was not kept.
 */
public final class CannedAclHeader {
  public static final String HEADER = "x-amz-acl";
  /** Explicit grants (x-amz-grant-read, -write, -read-acp, -write-acp, -full-control): not kept. */
  static final String GRANT_PREFIX = "x-amz-grant-";

  private CannedAclHeader() {}

  /**
   * The canned ACL the request names, or null when it names none. 501 NotImplemented for an S3 canned ACL Granary
   * does not keep and for explicit {@code x-amz-grant-*} headers; 400 InvalidArgument for a value S3 does not
   * define.
   */
  public static CannedAcl parse(HttpHeaders headers) {
    for (Map.Entry<String, String> e : headers) {
      if (e.getKey().toLowerCase(Locale.ROOT).startsWith(GRANT_PREFIX)) {
        throw new NotImplementedException("explicit grants (" + e.getKey() + ") are not implemented; Granary "
            + "keeps only the canned ACLs private and public-read (x-amz-acl)");
      }
    }
    String value = headers.get(HEADER);
    return value == null ? null : parse(value);
  }

  /** {@link #parse(HttpHeaders)} of one {@code x-amz-acl} value. */
  public static CannedAcl parse(String value) {
    CannedAcl acl = CannedAcl.find(value).orElse(null);
    if (acl != null) {
      return acl;
    }
    if (CannedAcl.UNSUPPORTED.contains(value.trim().toLowerCase(Locale.ROOT))) {
      throw new NotImplementedException("the canned ACL '" + value.trim() + "' is not implemented; Granary keeps "
          + "only private and public-read");
    }
    throw S3ApiException.invalidArgument("x-amz-acl must be a canned ACL; Granary keeps private and public-read",
        HEADER, value);
  }
}
