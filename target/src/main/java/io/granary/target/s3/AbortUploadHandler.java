package io.granary.target.s3;

import io.granary.common.control.ControlClient;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.target.http.ObjectApi;
import io.granary.target.multipart.MultipartStore;
import io.netty.handler.codec.http.HttpResponseStatus;

/** AbortMultipartUpload ({@code DELETE ?uploadId=U}): drops the upload's parts; 204, or 404 NoSuchUpload. */
final class AbortUploadHandler implements RequestHandler {
  private final ObjectApi api;
  private final MultipartStore multipart;
  private final BoundedExecutor disk;

  AbortUploadHandler(ObjectApi api, MultipartStore multipart, BoundedExecutor disk) {
    this.api = api;
    this.multipart = multipart;
    this.disk = disk;
  }

  @Override
  public void onRequest(HttpExchange ex) {
    ObjectApi.ObjectRequest req = api.read(ex);
    String uploadId = ex.queryParam("uploadId");
    disk.submit(() -> {
      multipart.abort(req.bucket(), req.name(), uploadId);
      return null;
    }).whenComplete((ok, err) -> {
      if (err != null) {
        ex.sendError(ControlClient.cause(err));
      } else {
        ex.sendHead(HttpResponseStatus.NO_CONTENT, null);
      }
    });
  }
}
