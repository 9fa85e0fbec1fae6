package io.granary.target.s3;

import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.AfterBody;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.target.http.ObjectHandlers;
import io.granary.target.http.ObjectPutHandler;
import io.granary.target.multipart.MultipartStore;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.Relocation;
import io.netty.handler.codec.http.HttpMethod;
import java.util.List;
import java.util.Map;

/**
 * The target's S3 endpoints under {@code /s3/BUCKET/KEY}, as a proxy relays them:
 *
 * <pre>
 * GET|HEAD                   GetObject, HeadObject        PUT                       PutObject
 * PUT  + x-amz-copy-source   CopyObject                   DELETE                    DeleteObject
 * POST ?uploads              CreateMultipartUpload        PUT  ?partNumber&amp;uploadId  UploadPart
 * POST ?uploadId             CompleteMultipartUpload      DELETE ?uploadId          AbortMultipartUpload
 * GET  ?uploadId             ListParts                    PUT  ?partNumber&amp;uploadId  UploadPartCopy
 *                                                         + x-amz-copy-source
 * GET|PUT ?acl               Get/PutObjectAcl             GET  ?attributes          GetObjectAttributes
 * </pre>
 *
 * The ACL and attributes operations read or change only the object's record: they go through
 * {@link ObjectHandlers#record}, which while objects move first brings the object here from a previous owner.
 */
public final class S3TargetRoutes {
  private final S3ObjectApi api;
  private final ObjectStore store;
  private final Relocation relocation;
  private final MultipartStore multipart;
  private final BoundedExecutor disk;
  private final CopySource copySource;
  private final ObjectHandlers handlers;

  public S3TargetRoutes(S3ObjectApi api, ObjectStore store, Relocation relocation, MultipartStore multipart,
      BoundedExecutor disk, CopySource copySource, ObjectHandlers handlers) {
    this.handlers = handlers;
    this.api = api;
    this.store = store;
    this.relocation = relocation;
    this.multipart = multipart;
    this.disk = disk;
    this.copySource = copySource;
  }

  public S3ObjectApi api() {
    return api;
  }

  /**
   * The handler for an S3 request, or null when the method does not apply. Operations served from the head run
   * only once a body sent with them has arrived whole ({@link AfterBody}): the proxy withholds the end of a body
   * that fails verification, and the request must then change nothing.
   */
  public RequestHandler route(HttpExchange ex) {
    HttpMethod m = ex.method();
    Map<String, List<String>> q = ex.queryParams();
    if (q.containsKey("acl")) {
      return m.equals(HttpMethod.GET) || m.equals(HttpMethod.PUT) // acts on its whole body
          ? handlers.record(api, new ObjectAclHandler(api, store, relocation, disk)) : null;
    }
    if (q.containsKey("attributes")) {
      return m.equals(HttpMethod.GET)
          ? AfterBody.of(ex, handlers.record(api, new ObjectAttributesHandler(api, store))) : null;
    }
    if (m.equals(HttpMethod.POST)) {
      if (q.containsKey("uploads")) {
        return AfterBody.of(ex, new CreateUploadHandler(api, multipart, disk));
      }
      if (q.containsKey("uploadId")) {
        return new CompleteUploadHandler(api, multipart, disk); // acts on its whole body
      }
      return null;
    }
    if (q.containsKey("uploadId")) {
      if (m.equals(HttpMethod.PUT) && ex.header(CopySource.HEADER) != null) {
        return AfterBody.of(ex, new UploadPartCopyHandler(api, store, multipart, disk, copySource));
      } else if (m.equals(HttpMethod.PUT)) {
        return new ObjectPutHandler(api, store, disk, new PartCompletion(multipart)); // commits at the body's end
      } else if (m.equals(HttpMethod.DELETE)) {
        return AfterBody.of(ex, new AbortUploadHandler(api, multipart, disk));
      } else if (m.equals(HttpMethod.GET)) {
        return AfterBody.of(ex, new ListPartsHandler(api, multipart, disk));
      }
      return null;
    }
    if (m.equals(HttpMethod.GET) || m.equals(HttpMethod.HEAD)) {
      return AfterBody.of(ex, handlers.get(api));
    } else if (m.equals(HttpMethod.PUT)) {
      if (ex.header(CopyObjectHandler.COPY_SOURCE) != null) {
        return AfterBody.of(ex, new CopyObjectHandler(api, store, disk, copySource, handlers));
      }
      return handlers.put(api); // commits at the body's end
    } else if (m.equals(HttpMethod.DELETE)) {
      return AfterBody.of(ex, handlers.delete(api));
    }
    return null;
  }
}
