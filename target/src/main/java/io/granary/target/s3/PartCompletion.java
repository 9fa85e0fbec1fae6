package io.granary.target.s3;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.common.http.HttpExchange;
import io.granary.target.http.ObjectApi;
import io.granary.target.http.PutCompletion;
import io.granary.target.multipart.MultipartStore;
import io.granary.target.multipart.Part;
import io.granary.target.multipart.Upload;
import io.granary.target.storage.PutOperation;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.granary.common.s3.S3ApiException;
import io.granary.target.meta.FlexibleChecksum;
import io.granary.target.multipart.UploadChecksum;
import io.granary.target.storage.PutOptions;
import java.io.IOException;
import java.nio.file.Files;

/**
 * UploadPart ({@code PUT ?partNumber=N&uploadId=U}): the streamed body becomes part N of the upload; its ETag is its
 * MD5. UploadPartCopy uses it too, with the copied bytes as the body.
 */
final class PartCompletion implements PutCompletion {
  private final MultipartStore multipart;
  private BucketProps bucket;
  private Upload upload;
  private int number;

  PartCompletion(MultipartStore multipart) {
    this.multipart = multipart;
  }

  @Override
  public void check(HttpExchange ex, ObjectApi.ObjectRequest req) throws IOException {
    number = MultipartStore.partNumber(ex.queryParam("partNumber"));
    bucket = req.bucket();
    upload = multipart.require(req.bucket(), req.name(), ex.queryParam("uploadId"));
  }

  /** A part of an upload created with a checksum algorithm keeps that checksum, whether the client sent it or not. */
  @Override
  public PutOptions options(PutOptions asked) {
    UploadChecksum c = upload.checksum();
    if (c == null) {
      return asked;
    }
    if (asked.flexible() != null && asked.flexible() != c.algorithm()) {
      throw new S3ApiException(HttpResponseStatus.BAD_REQUEST, "InvalidRequest", "Checksum Type mismatch occurred, "
          + "expected checksum Type: " + c.algorithm().wireName() + ", actual checksum Type: "
          + asked.flexible().wireName());
    }
    return asked.withFlexible(c.algorithm());
  }

  @Override
  public HttpHeaders complete(PutOperation op) throws IOException {
    Part part = add(op);
    HttpHeaders h = new DefaultHttpHeaders();
    h.set(HttpHeaderNames.ETAG, "\"" + part.md5() + "\"");
    UploadChecksum c = upload.checksum();
    if (c != null && part.checksum() != null) { // echoed as S3 does
      FlexibleChecksum sum = FlexibleChecksum.fullObject(c.algorithm(), part.checksum()); // a part's own checksum
      h.set(sum.header(), sum.wireValue(1));
    }
    return h;
  }

  /** Finishes the body as part N of the upload checked by {@link #check} (disk pool); nothing stays on failure. */
  Part add(PutOperation op) throws IOException {
    PutOperation.Staged staged = op.finishStaged();
    try {
      UploadChecksum c = upload.checksum();
      return multipart.addPart(bucket, upload, number, staged, staged.sums().get(ChecksumType.MD5),
          c == null ? null : staged.sums().get(c.algorithm()));
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(staged.workFile());
      throw e;
    }
  }
}
