package io.granary.target.s3;

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
import io.granary.target.http.ClientChecksums;
import io.granary.target.http.ObjectApi;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.PutOptions;
import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpUtil;
import java.util.Date;
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
        userMeta(h));
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
    for (Map.Entry<String, String> e : meta.userMeta().entrySet()) {
      h.set(META_PREFIX + e.getKey(), e.getValue());
    }
  }

  @Override
  public ByteRange range(String header, long size) {
    try {
      return ByteRange.parse(header, size);
    } catch (BadRequestException e) { // S3 answers every range it cannot serve with 416 InvalidRange
      throw new RangeNotSatisfiableException(e.getMessage(), size);
    }
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
