package io.granary.target.storage;

import io.granary.clustermap.acl.CannedAcl;
import io.granary.clustermap.bucket.ChecksumType;
import java.util.List;
import java.util.Map;

/**
 * What a PUT carries besides its body.
 *
 * @param declaredLength the body length the client declared, or -1 when unknown (chunked)
 * @param expected checksums the body must match, or nothing is stored
 * @param md5Etag compute the content MD5 and store it as the S3 ETag
 * @param contentType Content-Type to store, or null
 * @param userMeta user metadata to store ({@code x-amz-meta-*} without the prefix)
 * @param headers standard headers to store and return on reads (Cache-Control, Content-Disposition...)
 * @param condition the precondition the commit must meet ({@link WriteCondition#NONE}: none)
 * @param acl the canned ACL the new version gets (S3: a write does not keep the old version's); private by default
 * @param flexible the S3 flexible checksum algorithm to compute and keep with the object (the client sent one, in a
 *     header or a trailer), or null
 */
public record PutOptions(long declaredLength, List<ExpectedChecksum> expected, boolean md5Etag, String contentType,
    Map<String, String> userMeta, Map<String, String> headers, WriteCondition condition, CannedAcl acl,
    ChecksumType flexible) {
  public PutOptions {
    acl = acl == null ? CannedAcl.PRIVATE : acl;
    expected = List.copyOf(expected);
    userMeta = userMeta == null ? Map.of() : Map.copyOf(userMeta);
    headers = headers == null ? Map.of() : Map.copyOf(headers);
    condition = condition == null ? WriteCondition.NONE : condition;
    if (flexible != null && !flexible.s3Flexible()) {
      throw new IllegalArgumentException(flexible.wireName() + " is not an S3 flexible checksum");
    }
  }

  public PutOptions(long declaredLength, List<ExpectedChecksum> expected, boolean md5Etag, String contentType,
      Map<String, String> userMeta, Map<String, String> headers, WriteCondition condition, CannedAcl acl) {
    this(declaredLength, expected, md5Etag, contentType, userMeta, headers, condition, acl, null);
  }

  public PutOptions(long declaredLength, List<ExpectedChecksum> expected, boolean md5Etag, String contentType,
      Map<String, String> userMeta, Map<String, String> headers, WriteCondition condition) {
    this(declaredLength, expected, md5Etag, contentType, userMeta, headers, condition, CannedAcl.PRIVATE);
  }

  public PutOptions(long declaredLength, List<ExpectedChecksum> expected, boolean md5Etag, String contentType,
      Map<String, String> userMeta, Map<String, String> headers) {
    this(declaredLength, expected, md5Etag, contentType, userMeta, headers, WriteCondition.NONE);
  }

  public PutOptions(long declaredLength, List<ExpectedChecksum> expected, boolean md5Etag, String contentType,
      Map<String, String> userMeta) {
    this(declaredLength, expected, md5Etag, contentType, userMeta, Map.of());
  }

  /** A native-API PUT: length and client checksums only. */
  public static PutOptions nativePut(long declaredLength, List<ExpectedChecksum> expected) {
    return new PutOptions(declaredLength, expected, false, null, Map.of(), Map.of());
  }

  /** These options with {@code condition} as the write's precondition. */
  public PutOptions withCondition(WriteCondition condition) {
    return new PutOptions(declaredLength, expected, md5Etag, contentType, userMeta, headers, condition, acl, flexible);
  }

  /** These options keeping the {@code flexible} checksum of the content with the object (null: none). */
  public PutOptions withFlexible(ChecksumType flexible) {
    return new PutOptions(declaredLength, expected, md5Etag, contentType, userMeta, headers, condition, acl, flexible);
  }

  /** These options with {@code acl} as the new version's canned ACL. */
  public PutOptions withAcl(CannedAcl acl) {
    return new PutOptions(declaredLength, expected, md5Etag, contentType, userMeta, headers, condition, acl, flexible);
  }
}
