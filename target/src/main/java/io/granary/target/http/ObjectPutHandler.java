package io.granary.target.http;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.common.api.GranaryHeaders;
import io.granary.common.api.ObjectAddress;
import io.granary.common.control.ControlClient;
import io.granary.common.error.BadRequestException;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.target.storage.ExpectedChecksum;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.PutOperation;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code PUT /v1/objects/BUCKET/OBJECT}: streams the body to a work file while checksumming, then (on the disk
 * pool) verifies the client's checksums, fsyncs and commits. Checksums a client may send: {@code Content-MD5}
 * (base64) and {@code Granary-Checksum-Type}/{@code Granary-Checksum-Value} (hex). Any failure leaves nothing.
 */
final class ObjectPutHandler implements RequestHandler {
  private static final Logger log = LoggerFactory.getLogger(ObjectPutHandler.class);
  private static final Pattern HEX = Pattern.compile("[0-9a-fA-F]+");

  private final ClusterMetadataHolder cluster;
  private final ObjectStore store;
  private final BoundedExecutor disk;
  private PutOperation op;

  ObjectPutHandler(ClusterMetadataHolder cluster, ObjectStore store, BoundedExecutor disk) {
    this.cluster = cluster;
    this.store = store;
    this.disk = disk;
  }

  @Override
  public void onRequest(HttpExchange ex) {
    ObjectAddress addr = ObjectAddress.parse(ex);
    BucketProps bucket = cluster.requireBucket(addr.bucket());
    List<ExpectedChecksum> expected = expectedChecksums(ex);
    try {
      op = store.beginPut(bucket, addr.name(), ex.declaredLength(), expected);
    } catch (Exception e) {
      throw StorageErrors.of("starting PUT of " + addr.name(), e);
    }
  }

  @Override
  public void onContent(HttpExchange ex, HttpContent chunk) {
    try {
      op.write(chunk.content());
    } catch (Exception e) {
      throw StorageErrors.of("writing PUT body of " + op.location().name(), e);
    }
  }

  @Override
  public void onEnd(HttpExchange ex) {
    PutOperation put = op;
    op = null;
    disk.submit(put::finish).whenComplete((meta, err) -> {
      if (err != null) {
        Throwable cause = ControlClient.cause(err);
        put.discard();
        ex.sendError(StorageErrors.of("committing " + put.location().name(), cause));
        return;
      }
      HttpHeaders h = new DefaultHttpHeaders();
      ObjectHeaders.set(h, meta);
      ex.sendHead(HttpResponseStatus.OK, h);
    });
  }

  @Override
  public void onAbort(HttpExchange ex, Throwable cause) {
    PutOperation put = op;
    op = null;
    if (put != null) {
      log.debug("node={} bucket={} object={}: PUT aborted after {} bytes: {}", ex.nodeId(),
          put.location().bucket().bucket(), put.location().name(), put.written(), cause.toString());
      disk.execute(put::discard);
    }
  }

  private static List<ExpectedChecksum> expectedChecksums(HttpExchange ex) {
    List<ExpectedChecksum> out = new ArrayList<>(2);
    String md5 = ex.header(HttpHeaderNames.CONTENT_MD5);
    if (md5 != null) {
      byte[] raw;
      try {
        raw = Base64.getDecoder().decode(md5.trim());
      } catch (IllegalArgumentException e) {
        raw = new byte[0];
      }
      if (raw.length != 16) {
        throw BadRequestException.invalidArgument("Content-MD5 must be the base64 of a 16-byte MD5 digest");
      }
      out.add(new ExpectedChecksum(ChecksumType.MD5, HexFormat.of().formatHex(raw)));
    }
    String type = ex.header(GranaryHeaders.CHECKSUM_TYPE);
    String value = ex.header(GranaryHeaders.CHECKSUM_VALUE);
    if (type != null || value != null) {
      if (type == null || value == null) {
        throw BadRequestException.invalidArgument(
            "send both Granary-Checksum-Type and Granary-Checksum-Value, or neither");
      }
      ChecksumType t;
      try {
        t = ChecksumType.parse(type);
      } catch (IllegalArgumentException e) {
        throw BadRequestException.invalidArgument(e.getMessage());
      }
      if (!HEX.matcher(value).matches()) {
        throw BadRequestException.invalidArgument("Granary-Checksum-Value must be hex, got '" + value + "'");
      }
      out.add(new ExpectedChecksum(t, value.toLowerCase(Locale.ROOT)));
    }
    return out;
  }
}
