package io.granary.target.meta;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.granary.clustermap.acl.CannedAcl;
import io.granary.clustermap.bucket.ChecksumType;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The immutable record of one stored object version. Access time is kept apart so that reads never rewrite it.
 *
 * @param size content length in bytes
 * @param checksumType algorithm of {@code checksum}
 * @param checksum lowercase hex checksum of the whole content
 * @param mtime when this version was committed, epoch milliseconds
 * @param etag the S3 ETag without quotes: the content MD5 for a single PUT, {@code md5-of-part-md5s-N} for a
 *     multipart upload; null for objects written without one (their ETag is the checksum)
 * @param contentType the Content-Type given at upload, or null
 * @param userMeta user metadata ({@code x-amz-meta-*} without the prefix, lowercase names), possibly empty
 * @param headers standard headers given at upload and returned on reads (Cache-Control, Content-Disposition,
 *     Content-Encoding, Content-Language, Expires), lowercase names, possibly empty
 * @param partSizes for an object completed from a multipart upload, the size of each part in order (S3 GETs of one
 *     part use them); empty otherwise
 * @param remote for a cached object of a remote bucket: the remote version it is a copy of; null otherwise
 * @param acl the object's canned ACL ({@code public-read}: unsigned requests may GET and HEAD it); private when
 *     not given, as for records written before ACLs existed
 * @param flexible the S3 flexible checksum the client gave the object ({@code x-amz-checksum-*}), or null: none given,
 *     as for records written before format 6
 * @param copies the mountpaths (their {@code Mountpath.id()}) holding a full mirror copy of this version besides
 *     the main one, in the order they were made (docs/protection.md); empty for one copy, as for records written
 *     before format 8
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record ObjectMeta(long size, ChecksumType checksumType, String checksum, long mtime, String etag,
    String contentType, Map<String, String> userMeta, Map<String, String> headers, List<Long> partSizes,
    RemoteVersion remote, CannedAcl acl, FlexibleChecksum flexible, List<String> copies) {
  public ObjectMeta {
    acl = acl == null ? CannedAcl.PRIVATE : acl;
    Objects.requireNonNull(checksumType, "checksumType");
    Objects.requireNonNull(checksum, "checksum");
    if (size < 0) {
      throw new IllegalArgumentException("size must be >= 0");
    }
    userMeta = userMeta == null || userMeta.isEmpty() ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(userMeta));
    headers = headers == null || headers.isEmpty() ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(headers));
    partSizes = partSizes == null ? List.of() : List.copyOf(partSizes);
    copies = copies == null ? List.of() : List.copyOf(copies);
    if (copies.size() != copies.stream().distinct().count()) {
      throw new IllegalArgumentException("mirror copies must be on distinct mountpaths: " + copies);
    }
  }

  /** An object with one copy, the main one. */
  public ObjectMeta(long size, ChecksumType checksumType, String checksum, long mtime, String etag,
      String contentType, Map<String, String> userMeta, Map<String, String> headers, List<Long> partSizes,
      RemoteVersion remote, CannedAcl acl, FlexibleChecksum flexible) {
    this(size, checksumType, checksum, mtime, etag, contentType, userMeta, headers, partSizes, remote, acl, flexible,
        List.of());
  }

  /** An object without a flexible checksum. */
  public ObjectMeta(long size, ChecksumType checksumType, String checksum, long mtime, String etag,
      String contentType, Map<String, String> userMeta, Map<String, String> headers, List<Long> partSizes,
      RemoteVersion remote, CannedAcl acl) {
    this(size, checksumType, checksum, mtime, etag, contentType, userMeta, headers, partSizes, remote, acl, null);
  }

  /** A private object. */
  public ObjectMeta(long size, ChecksumType checksumType, String checksum, long mtime, String etag,
      String contentType, Map<String, String> userMeta, Map<String, String> headers, List<Long> partSizes,
      RemoteVersion remote) {
    this(size, checksumType, checksum, mtime, etag, contentType, userMeta, headers, partSizes, remote,
        CannedAcl.PRIVATE);
  }

  /** An object that is not a copy of a remote one. */
  public ObjectMeta(long size, ChecksumType checksumType, String checksum, long mtime, String etag,
      String contentType, Map<String, String> userMeta, Map<String, String> headers, List<Long> partSizes) {
    this(size, checksumType, checksum, mtime, etag, contentType, userMeta, headers, partSizes, null);
  }

  /** The same object recorded as a copy of {@code remote}. */
  public ObjectMeta withRemote(RemoteVersion remote) {
    return new ObjectMeta(size, checksumType, checksum, mtime, etag, contentType, userMeta, headers, partSizes,
        remote, acl, flexible, copies);
  }

  /** The same object with {@code flexible} as its client's checksum (null: none). */
  public ObjectMeta withFlexible(FlexibleChecksum flexible) {
    return new ObjectMeta(size, checksumType, checksum, mtime, etag, contentType, userMeta, headers, partSizes,
        remote, acl, flexible, copies);
  }

  /** The same version recorded with mirror copies on {@code copies} (mountpath ids); nothing else changes. */
  public ObjectMeta withCopies(List<String> copies) {
    return new ObjectMeta(size, checksumType, checksum, mtime, etag, contentType, userMeta, headers, partSizes,
        remote, acl, flexible, copies);
  }

  /** How many full copies of this version the target holds: the main one and its mirror copies. */
  public int copyCount() {
    return 1 + copies.size();
  }

  /**
   * Whether this record, read on the mountpath {@code mountpathId}, is a mirror copy there: a copy's own record lists
   * its mountpath, the main record never lists its own. Lookups, commits and resilver tell a copy from a stray
   * (a main copy left on a mountpath that is no longer its HRW one) by this.
   */
  public boolean isMirrorCopyOn(String mountpathId) {
    return copies.contains(mountpathId);
  }

  /**
   * Whether {@code other} records the same content version: size, mtime, checksum and ETag agree. The copy list and
   * the ACL do not make a version (a copy is recorded and an ACL changed without new content).
   */
  public boolean sameVersion(ObjectMeta other) {
    return other != null && size == other.size && mtime == other.mtime && checksumType == other.checksumType
        && checksum.equals(other.checksum) && Objects.equals(etag, other.etag);
  }

  /** The same object with another ACL; nothing else changes (an ACL is not a new version of the content). */
  public ObjectMeta withAcl(CannedAcl acl) {
    return new ObjectMeta(size, checksumType, checksum, mtime, etag, contentType, userMeta, headers, partSizes,
        remote, acl, flexible, copies);
  }

  /** An object with only content attributes (no S3 ETag, type or user metadata). */
  public ObjectMeta(long size, ChecksumType checksumType, String checksum, long mtime) {
    this(size, checksumType, checksum, mtime, null, null, Map.of(), Map.of(), List.of());
  }

  /** An object without stored headers or parts. */
  public ObjectMeta(long size, ChecksumType checksumType, String checksum, long mtime, String etag,
      String contentType, Map<String, String> userMeta) {
    this(size, checksumType, checksum, mtime, etag, contentType, userMeta, Map.of(), List.of());
  }

  /** The ETag clients see, without quotes: the S3 ETag when there is one, else the content checksum. */
  public String effectiveEtag() {
    return etag != null ? etag : checksum;
  }
}
