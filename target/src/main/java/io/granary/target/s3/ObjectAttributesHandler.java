package io.granary.target.s3;

import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.s3.GetObjectAttributesResponse;
import io.granary.common.s3.ListedObject;
import io.granary.common.s3.ObjectChecksum;
import io.granary.common.s3.ObjectPartsPage;
import io.granary.common.s3.S3Responses;
import io.granary.target.meta.FlexibleChecksum;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.s3.AttributesRequest.Attribute;
import io.granary.target.storage.ObjectStore;
import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Date;
import java.util.ArrayList;
import java.util.List;

/**
 * GetObjectAttributes ({@code GET ?attributes}): the object's ETag, flexible checksum, parts, storage class and size,
 * from its record alone (no content is read). Parts are listed for an object completed from a multipart upload,
 * from the part sizes its record keeps, each with its number, size and, when the upload had a checksum algorithm,
 * the part's checksum (S3's general purpose buckets list parts only with part checksums; its directory buckets, as
 * here, always do). The checksum is the one the client gave; an object without one answers no Checksum. 404
 * NoSuchKey for a missing object.
 */
final class ObjectAttributesHandler implements RequestHandler {
  private final S3ObjectApi api;
  private final ObjectStore store;

  ObjectAttributesHandler(S3ObjectApi api, ObjectStore store) {
    this.api = api;
    this.store = store;
  }

  @Override
  public void onRequest(HttpExchange ex) throws Exception {
    ex.useErrorRenderer(api.errors());
    var req = api.read(ex);
    AttributesRequest asked = AttributesRequest.parse(ex.request().headers());
    ObjectMeta meta = store.stat(req.bucket(), req.name()); // a RocksDB point read, as a GET's
    if (meta == null) {
      throw api.notFound(ex, req);
    }
    api.authorizeRead(ex, meta);
    HttpHeaders h = new DefaultHttpHeaders();
    h.set(HttpHeaderNames.LAST_MODIFIED, DateFormatter.format(new Date(meta.mtime()))); // S3 answers it too
    S3Responses.xml(ex, HttpResponseStatus.OK, answer(asked, meta), h);
  }

  static GetObjectAttributesResponse answer(AttributesRequest asked, ObjectMeta meta) {
    ObjectChecksum checksum = asked.wants(Attribute.CHECKSUM) ? FlexibleChecksums.of(meta) : null;
    return new GetObjectAttributesResponse(
        asked.wants(Attribute.ETAG) ? meta.effectiveEtag() : null,
        checksum,
        asked.wants(Attribute.OBJECT_PARTS) && !meta.partSizes().isEmpty() ? parts(asked, meta) : null,
        asked.wants(Attribute.STORAGE_CLASS) ? ListedObject.STANDARD : null,
        asked.wants(Attribute.OBJECT_SIZE) ? meta.size() : null);
  }

  /** The page of parts after the marker, at most {@code maxParts} of them. */
  static ObjectPartsPage parts(AttributesRequest asked, ObjectMeta meta) {
    List<Long> sizes = meta.partSizes();
    FlexibleChecksum c = meta.flexible();
    List<ObjectPartsPage.Part> page = new ArrayList<>();
    int next = asked.partNumberMarker() + 1;
    for (int n = next; n <= sizes.size() && page.size() < asked.maxParts(); n++) {
      String sum = c == null ? null : c.partWireValue(n);
      page.add(new ObjectPartsPage.Part(n, sizes.get(n - 1),
          sum == null ? null : new ObjectChecksum(c.type().wireName(), sum, null)));
    }
    int last = page.isEmpty() ? asked.partNumberMarker() : page.get(page.size() - 1).number();
    return new ObjectPartsPage(sizes.size(), asked.partNumberMarker(), asked.maxParts(), last < sizes.size(), page);
  }
}
