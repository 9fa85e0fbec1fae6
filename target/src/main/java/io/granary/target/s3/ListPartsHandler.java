package io.granary.target.s3;

import io.granary.common.control.ControlClient;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.s3.ListPartsResult;
import io.granary.common.s3.ListedPart;
import io.granary.common.s3.Owner;
import io.granary.common.s3.S3ApiException;
import io.granary.common.s3.S3Responses;
import io.granary.target.http.ObjectApi;
import io.granary.target.multipart.MultipartStore;
import io.granary.target.multipart.Part;
import io.granary.target.multipart.Upload;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.time.Instant;
import java.util.List;

/** ListParts ({@code GET ?uploadId=U}): the upload's parts after part-number-marker, at most max-parts (1000). */
final class ListPartsHandler implements RequestHandler {
  private final ObjectApi api;
  private final MultipartStore multipart;
  private final BoundedExecutor disk;

  ListPartsHandler(ObjectApi api, MultipartStore multipart, BoundedExecutor disk) {
    this.api = api;
    this.multipart = multipart;
    this.disk = disk;
  }

  @Override
  public void onRequest(HttpExchange ex) {
    ObjectApi.ObjectRequest req = api.read(ex);
    String uploadId = ex.queryParam("uploadId");
    int marker = number(ex.queryParam("part-number-marker"), "part-number-marker", 0);
    int max = Math.min(number(ex.queryParam("max-parts"), "max-parts", 1000), 1000);
    disk.submit(() -> {
      Upload u = multipart.require(req.bucket(), req.name(), uploadId);
      return multipart.parts(req.bucket(), u);
    }).whenComplete((parts, err) -> {
      if (err != null) {
        ex.sendError(ControlClient.cause(err));
        return;
      }
      List<Part> after = parts.stream().filter(p -> p.number() > marker).toList();
      boolean truncated = after.size() > max;
      List<ListedPart> page = after.stream().limit(max)
          .map(p -> new ListedPart(p.number(), Instant.ofEpochMilli(p.mtime()), p.md5(), p.size())).toList();
      S3Responses.xml(ex, HttpResponseStatus.OK, new ListPartsResult(req.bucket().bucket().name(), req.name(),
          uploadId, marker, max, truncated, page, new Owner("granary", "granary")));
    });
  }

  private static int number(String v, String name, int dflt) {
    if (v == null || v.isEmpty()) {
      return dflt;
    }
    try {
      int n = Integer.parseInt(v);
      if (n >= 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // below
    }
    throw S3ApiException.invalidArgument(name + " must be a non-negative integer", name, v);
  }
}
