package io.granary.target.s3;

import io.granary.common.control.ControlClient;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.SmallBodyHandler;
import io.granary.common.s3.CompleteMultipartUpload;
import io.granary.common.s3.CompleteMultipartUploadResult;
import io.granary.common.s3.S3Responses;
import io.granary.target.http.ObjectApi;
import io.granary.target.http.WritePreconditions;
import io.granary.target.multipart.MultipartStore;
import io.granary.target.storage.WriteCondition;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.granary.common.s3.ObjectChecksum;
import io.granary.target.meta.FlexibleChecksum;

/**
 * CompleteMultipartUpload ({@code POST ?uploadId=U} with the part list): checks the parts, assembles and commits
 * the object on the disk pool, and answers with its ETag ({@code md5-of-part-md5s-N}); a retry of a completion that
 * succeeded gets the same answer within the retry window. {@code If-None-Match: *} and
 * {@code If-Match} are decided at the commit ({@link MultipartStore#complete(io.granary.clustermap.bucket.BucketProps,
 * String, String, java.util.List, WriteCondition)}).
 */
final class CompleteUploadHandler extends SmallBodyHandler {
  /** 10,000 parts with checksums come to about 1.3 MB. */
  static final int MAX_BODY = 4 << 20;

  private final ObjectApi api;
  private final MultipartStore multipart;
  private final BoundedExecutor disk;
  private ObjectApi.ObjectRequest req;
  private WriteCondition condition; // If-Match / If-None-Match, decided when the object is committed

  CompleteUploadHandler(ObjectApi api, MultipartStore multipart, BoundedExecutor disk) {
    super(MAX_BODY);
    this.api = api;
    this.multipart = multipart;
    this.disk = disk;
  }

  @Override
  public void onRequest(HttpExchange ex) throws Exception {
    super.onRequest(ex);
    req = api.read(ex);
    condition = WritePreconditions.parse(ex.request().headers()); // malformed: 400 before the body is read
  }

  @Override
  protected void handle(HttpExchange ex, byte[] body) {
    CompleteMultipartUpload parts = CompleteMultipartUpload.parse(body);
    String uploadId = ex.queryParam("uploadId");
    disk.submit(() -> multipart.complete(req.bucket(), req.name(), uploadId, parts.parts(), condition))
        .whenComplete((m, err) -> {
          if (err != null) {
            ex.sendError(ControlClient.cause(err));
          } else {
            String bucket = req.bucket().bucket().name();
            FlexibleChecksum c = m.checksum();
            ObjectChecksum checksum = c == null ? null
                : new ObjectChecksum(c.type().wireName(), c.wireValue(m.parts()), c.kind().name());
            S3Responses.xml(ex, HttpResponseStatus.OK, new CompleteMultipartUploadResult(
                "/" + bucket + "/" + req.name(), bucket, req.name(), m.etag(), checksum));
          }
        });
  }
}
