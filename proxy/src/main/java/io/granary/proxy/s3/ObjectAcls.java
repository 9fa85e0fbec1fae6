package io.granary.proxy.s3;

import io.granary.clustermap.acl.CannedAcl;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.error.NotImplementedException;
import io.granary.common.http.HttpExchange;
import io.granary.common.s3.CannedAclHeader;
import io.granary.common.s3.S3ApiException;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import java.util.Map;

/**
 * The proxy's check of the ACL an object request asks for, before it is relayed: so that a refused ACL (501 for
 * what Granary does not keep, 400 for what S3 does not define) is answered before any body moves and the target
 * changes nothing. The target keeps the ACL; GetObjectAcl is answered there too.
 */
final class ObjectAcls {
  private ObjectAcls() {}

  static void check(HttpExchange ex, BucketProps bucket, HttpMethod m, Map<String, List<String>> q) {
    if (q.containsKey("acl")) {
      if (m.equals(HttpMethod.PUT)) {
        // an ACL in a policy body is relayed and read by the target (which also refuses public-read on remote)
        refusePublicRemote(bucket, headerAcl(ex));
      }
      return;
    }
    boolean write = m.equals(HttpMethod.PUT) || (m.equals(HttpMethod.POST) && q.containsKey("uploads"));
    if (write && !q.containsKey("uploadId")) { // UploadPart takes no ACL: the upload was given one
      refusePublicRemote(bucket, CannedAclHeader.parse(ex.request().headers()));
    }
  }

  /**
   * The canned ACL of a PutBucketAcl or PutObjectAcl when {@code x-amz-acl} names it, or null when an
   * AccessControlPolicy body does (read once it has arrived: {@link io.granary.common.s3.AccessControlPolicyBody}).
   * Grants in headers are 501; both a header and a body, or neither, 400 InvalidRequest, as on S3.
   */
  static CannedAcl headerAcl(HttpExchange ex) {
    CannedAcl acl = CannedAclHeader.parse(ex.request().headers()); // grants, unsupported: 501; unknown: 400
    boolean body = hasPayload(ex);
    if (acl != null && body) {
      throw new S3ApiException(HttpResponseStatus.BAD_REQUEST, "InvalidRequest",
          "set an ACL either with x-amz-acl or with an AccessControlPolicy body, not both");
    }
    if (acl == null && !body) {
      throw new S3ApiException(HttpResponseStatus.BAD_REQUEST, "InvalidRequest",
          "setting an ACL needs a canned ACL in x-amz-acl (private or public-read) or an AccessControlPolicy body");
    }
    return acl;
  }

  /** Public-read is refused on a remote bucket: unsigned clients never read from one (see AnonymousAccess). */
  static void refusePublicRemote(BucketProps bucket, CannedAcl acl) {
    if (acl != null && acl.publicRead() && bucket.isRemote()) {
      throw new NotImplementedException("public-read is not implemented for remote bucket " + bucket.bucket()
          + ": unsigned clients never read through to another store");
    }
  }

  /** Whether the request carries body bytes (the decoded length of an aws-chunked one). */
  private static boolean hasPayload(HttpExchange ex) {
    String decoded = ex.header("x-amz-decoded-content-length");
    if (decoded != null) {
      return !decoded.trim().equals("0");
    }
    String length = ex.header(HttpHeaderNames.CONTENT_LENGTH);
    if (length != null) {
      return !length.trim().equals("0");
    }
    String te = ex.header(HttpHeaderNames.TRANSFER_ENCODING);
    return te != null && te.contains(HttpHeaderValues.CHUNKED);
  }
}
