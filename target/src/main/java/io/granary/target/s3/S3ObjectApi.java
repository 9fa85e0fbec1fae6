package io.granary.target.s3;

import io.granary.clustermap.acl.CannedAcl;
import io.granary.clustermap.bucket.InvalidNameException;
import io.granary.clustermap.bucket.ObjectName;
import io.granary.common.api.ObjectAddress;
import io.granary.common.error.BadRequestException;
import io.granary.common.error.RangeNotSatisfiableException;
import io.granary.common.http.ByteRange;
import io.granary.common.http.ErrorRenderer;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestPath;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.api.GranaryHeaders;
import io.granary.common.s3.CannedAclHeader;
import io.granary.common.s3.S3ApiException;
import io.granary.target.http.ClientChecksums;
import io.granary.target.http.ObjectApi;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.multipart.MultipartStore;
import io.granary.target.storage.PutOptions;
import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Base64;
import java.util.Date;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * S3 object requests on a target: {@code /s3/BUCKET/KEY} as relayed by a proxy (which has checked the client's
 * signature and decoded any aws-chunked body). ETags are content MD5s, Content-Type and {@code x-amz-meta-*} are
 * stored and returned, errors are S3 XML.
 */
public final class S3ObjectApi implements ObjectApi {
  /** The path prefix of S3 object requests on a target. */
  public static final String PREFIX = "/s3/";
  /** Set by the relaying proxy: the provider of the bucket the request names (ais, aws, gcp). */
  public static final String PROVIDER_HEADER = "granary-provider";
  static final String META_PREFIX = "x-amz-meta-";
  /** S3's limit on the user-defined metadata of one object. */
  static final int MAX_USER_META_BYTES = 2048;
  /** Headers given at upload that S3 stores as system metadata and returns on GET and HEAD. */
  static final List<String> STORED_HEADERS = List.of("cache-control", "content-disposition", "content-encoding",
      "content-language", "expires");
  /** GetObject's query parameters that replace a response header, and the header each replaces. */
  private static final Map<String, String> RESPONSE_OVERRIDES = Map.of(
      "response-content-type", "content-type",
      "response-content-disposition", "content-disposition",
      "response-content-encoding", "content-encoding",
      "response-content-language", "content-language",
      "response-cache-control", "cache-control",
      "response-expires", "expires");
  static final String PART_NUMBER_PARAM = "partNumber";
  static final String PARTS_COUNT_HEADER = "x-amz-mp-parts-count";
  static final String CHECKSUM_MODE_HEADER = "x-amz-checksum-mode";
  static final String CHECKSUM_TYPE_HEADER = "x-amz-checksum-type";

  private final ClusterMetadataHolder cluster;
  private final ErrorRenderer errors;

  public S3ObjectApi(ClusterMetadataHolder cluster, ErrorRenderer errors) {
    this.cluster = cluster;
    this.errors = errors;
  }

  ClusterMetadataHolder cluster() {
    return cluster;
  }

  @Override
  public ObjectRequest read(HttpExchange ex) {
    String rest = ex.path().raw().substring(PREFIX.length());
    int slash = rest.indexOf('/');
    if (slash < 0 || slash == rest.length() - 1) {
      throw new BadRequestException(BadRequestException.INVALID_OBJECT_NAME, "no object key in " + ex.path().raw());
    }
    String key = RequestPath.decode(rest.substring(slash + 1));
    try {
      ObjectName.requireValid(key);
    } catch (InvalidNameException e) {
      throw new BadRequestException(BadRequestException.INVALID_OBJECT_NAME, e.getMessage());
    }
    return new ObjectRequest(cluster.requireBucket(
        ObjectAddress.bucket(RequestPath.decode(rest.substring(0, slash)), ex.header(PROVIDER_HEADER))), key);
  }

  @Override
  public PutOptions putOptions(HttpExchange ex) {
    HttpHeaders h = ex.request().headers();
    long declared = -1;
    String decoded = h.get("x-amz-decoded-content-length");
    if (decoded != null) {
      try {
        declared = Long.parseLong(decoded.trim());
      } catch (NumberFormatException e) {
        throw BadRequestException.invalidArgument("x-amz-decoded-content-length must be a number");
      }
    } else {
      declared = HttpUtil.getContentLength(ex.request(), -1L);
    }
    return new PutOptions(declared, ClientChecksums.parse(h), true, h.get(HttpHeaderNames.CONTENT_TYPE),
        userMeta(h), storedHeaders(h)).withAcl(acl(ex)).withFlexible(ClientChecksums.flexible(h));
  }

  /** The canned ACL a write asks for ({@code x-amz-acl}), private without one; 501/400 as the proxy answers. */
  static CannedAcl acl(HttpExchange ex) {
    CannedAcl acl = CannedAclHeader.parse(ex.request().headers());
    return acl == null ? CannedAcl.PRIVATE : acl;
  }

  /**
   * A read the proxy relayed for an unsigned client ({@link GranaryHeaders#ANONYMOUS}) is served only when the
   * object is public-read. Checked before anything else about the object is answered (304, 412, ranges), so an
   * unsigned client learns nothing of a private object but that it is not readable.
   */
  @Override
  public void authorizeRead(HttpExchange ex, ObjectMeta meta) {
    if (ex.request().headers().contains(GranaryHeaders.ANONYMOUS) && !meta.acl().publicRead()) {
      throw accessDenied();
    }
  }

  /**
   * As S3 answers an unsigned read of a missing key: 404 when the bucket is public-read (its listing would show the
   * key is absent anyway), else 403, so a private bucket does not tell unsigned clients which keys exist.
   */
  @Override
  public RuntimeException notFound(HttpExchange ex, ObjectRequest req) {
    if (ex.request().headers().contains(GranaryHeaders.ANONYMOUS) && !req.bucket().acl().publicRead()) {
      return accessDenied();
    }
    return ObjectApi.super.notFound(ex, req);
  }

  /** 403 AccessDenied, as S3 answers an unsigned request for what is not public. */
  public static S3ApiException accessDenied() {
    return new S3ApiException(HttpResponseStatus.FORBIDDEN, "AccessDenied", "Access Denied: the object is not "
        + "public-read; sign the request");
  }

  /** The standard headers S3 keeps with an object and returns on reads, by lowercase name. */
  static Map<String, String> storedHeaders(HttpHeaders h) {
    Map<String, String> stored = new TreeMap<>();
    for (String name : STORED_HEADERS) {
      String v = h.get(name);
      if (v != null) {
        stored.put(name, v);
      }
    }
    return stored;
  }

  /** {@code x-amz-meta-*} headers, names lowercased without the prefix, at most 2 KiB in all (S3's limit). */
  static Map<String, String> userMeta(HttpHeaders h) {
    Map<String, String> meta = new TreeMap<>();
    int bytes = 0;
    for (Map.Entry<String, String> e : h) {
      String name = e.getKey().toLowerCase(Locale.ROOT);
      if (name.startsWith(META_PREFIX) && name.length() > META_PREFIX.length()) {
        String key = name.substring(META_PREFIX.length());
        meta.merge(key, e.getValue(), (a, b) -> a + "," + b);
        bytes += key.length() + e.getValue().length();
      }
    }
    if (bytes > MAX_USER_META_BYTES) {
      throw new BadRequestException("MetadataTooLarge",
          "user metadata is " + bytes + " bytes; at most " + MAX_USER_META_BYTES + " are allowed");
    }
    return meta;
  }

  @Override
  public void describe(HttpHeaders h, ObjectMeta meta) {
    h.set(HttpHeaderNames.ETAG, "\"" + meta.effectiveEtag() + "\"");
    h.set(HttpHeaderNames.LAST_MODIFIED, DateFormatter.format(new Date(meta.mtime())));
    h.set(HttpHeaderNames.CONTENT_TYPE, meta.contentType() != null ? meta.contentType() : "binary/octet-stream");
    for (Map.Entry<String, String> e : meta.headers().entrySet()) {
      h.set(e.getKey(), e.getValue());
    }
    for (Map.Entry<String, String> e : meta.userMeta().entrySet()) {
      h.set(META_PREFIX + e.getKey(), e.getValue());
    }
  }

  /** A PutObject's answer also echoes the flexible checksum the client gave, as S3 does. */
  @Override
  public void describeWrite(HttpHeaders h, ObjectMeta meta) {
    describe(h, meta);
    FlexibleChecksums.set(h, meta);
  }

  /**
   * The {@code response-*} overrides of GetObject (presigned download links name the saved file with them), and
   * on {@code x-amz-checksum-mode: ENABLED} the object's checksum when it is one S3 clients can verify.
   */
  @Override
  public void decorateRead(HttpExchange ex, HttpHeaders response, ObjectMeta meta) {
    if (!ex.path().rawQuery().isEmpty()) {
      for (Map.Entry<String, String> o : RESPONSE_OVERRIDES.entrySet()) {
        String v = ex.queryParam(o.getKey());
        if (v != null) {
          response.set(o.getValue(), v);
        }
      }
    }
    boolean checksumMode = "ENABLED".equalsIgnoreCase(ex.header(CHECKSUM_MODE_HEADER));
    String partParam = ex.queryParam(PART_NUMBER_PARAM);
    if (checksumMode && partParam != null && ex.header(HttpHeaderNames.RANGE) == null) {
      FlexibleChecksums.setPart(response, meta, MultipartStore.partNumber(partParam)); // range() checked the number
    } else if (checksumMode && ex.header(HttpHeaderNames.RANGE) == null && partParam == null) {
      String header = ClientChecksums.s3Header(meta.checksumType());
      if (meta.flexible() != null) { // the one the client gave wins over the bucket's
        FlexibleChecksums.set(response, meta);
      } else if (header != null) { // the whole object's checksum: S3 sends none for a part or a range either
        response.set(header, Base64.getEncoder().encodeToString(HexFormat.of().parseHex(meta.checksum())));
        // Computed over the whole content, also for an object completed from parts: no checksum of checksums.
        response.set(CHECKSUM_TYPE_HEADER, "FULL_OBJECT");
      }
    }
  }

  /**
   * A Range header, or {@code ?partNumber=N}: the bytes of part N of an object completed from a multipart upload,
   * with the number of parts in {@code x-amz-mp-parts-count}. An object written by one PUT has one part.
   */
  @Override
  public ByteRange range(HttpExchange ex, ObjectMeta meta, HttpHeaders response) {
    String header = ex.header(HttpHeaderNames.RANGE);
    String partParam = ex.queryParam(PART_NUMBER_PARAM);
    if (partParam == null) {
      try {
        return ByteRange.parse(header, meta.size());
      } catch (BadRequestException e) { // S3 answers every range it cannot serve with 416 InvalidRange
        throw new RangeNotSatisfiableException(e.getMessage(), meta.size());
      }
    }
    if (header != null) {
      throw new S3ApiException(HttpResponseStatus.BAD_REQUEST, "InvalidRequest",
          "Cannot specify both Range header and partNumber query parameter");
    }
    int part = MultipartStore.partNumber(partParam);
    List<Long> sizes = meta.partSizes();
    if (sizes.isEmpty()) {
      if (part != 1) {
        throw invalidPartNumber(part, 1);
      }
      return meta.size() == 0 ? null : new ByteRange(0, meta.size(), meta.size());
    }
    if (part > sizes.size()) {
      throw invalidPartNumber(part, sizes.size());
    }
    response.set(PARTS_COUNT_HEADER, sizes.size());
    long offset = 0;
    for (int i = 0; i < part - 1; i++) {
      offset += sizes.get(i);
    }
    long length = sizes.get(part - 1);
    return length == 0 ? null : new ByteRange(offset, length, meta.size());
  }

  private static S3ApiException invalidPartNumber(int part, int parts) {
    return new S3ApiException(HttpResponseStatus.REQUESTED_RANGE_NOT_SATISFIABLE, "InvalidPartNumber",
        "The requested partnumber is not satisfiable: part " + part + " of an object with " + parts
            + (parts == 1 ? " part" : " parts"));
  }

  @Override
  public boolean missingDeleteIsError() {
    return false;
  }

  @Override
  public ErrorRenderer errors() {
    return errors;
  }
}
