package io.granary.target.s3;

import io.granary.clustermap.acl.CannedAcl;
import io.granary.common.control.ControlClient;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.s3.InitiateMultipartUploadResult;
import io.granary.common.s3.S3Responses;
import io.granary.target.http.ObjectApi;
import io.granary.target.multipart.MultipartStore;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.granary.target.multipart.UploadChecksum;

/** CreateMultipartUpload ({@code POST ?uploads}): records the upload with the object's future Content-Type and metadata. */
final class CreateUploadHandler implements RequestHandler {
  private final ObjectApi api;
  private final MultipartStore multipart;
  private final BoundedExecutor disk;

  CreateUploadHandler(ObjectApi api, MultipartStore multipart, BoundedExecutor disk) {
    this.api = api;
    this.multipart = multipart;
    this.disk = disk;
  }

  @Override
  public void onRequest(HttpExchange ex) {
    ObjectApi.ObjectRequest req = api.read(ex);
    var meta = S3ObjectApi.userMeta(ex.request().headers());
    String contentType = ex.header(HttpHeaderNames.CONTENT_TYPE);
    var headers = S3ObjectApi.storedHeaders(ex.request().headers());
    CannedAcl acl = S3ObjectApi.acl(ex);
    UploadChecksum checksum = UploadChecksumHeaders.parse(ex.request().headers());
    disk.submit(() -> multipart.create(req.bucket(), req.name(), contentType, meta, headers, acl, checksum))
        .whenComplete((u, err) -> {
      if (err != null) {
        ex.sendError(ControlClient.cause(err));
      } else {
        HttpHeaders answer = new DefaultHttpHeaders();
        UploadChecksumHeaders.echo(answer, u.checksum());
        S3Responses.xml(ex, HttpResponseStatus.OK,
            new InitiateMultipartUploadResult(req.bucket().bucket().name(), req.name(), u.uploadId()), answer);
      }
    });
  }
}
