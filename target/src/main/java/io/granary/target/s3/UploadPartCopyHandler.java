package io.granary.target.s3;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.control.ControlClient;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.s3.CopyPartResult;
import io.granary.common.s3.S3Responses;
import io.granary.target.http.ObjectApi;
import io.granary.target.multipart.MultipartStore;
import io.granary.target.multipart.Part;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.PutOperation;
import io.granary.target.storage.PutOptions;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * UploadPartCopy ({@code PUT ?partNumber=N&uploadId=U} with {@code x-amz-copy-source} and optionally
 * {@code x-amz-copy-source-range: bytes=first-last}): part N of the upload becomes the source's bytes, streamed from
 * this target's disk or from the source's owner ({@link CopyTransfer}) into the part's work file, hashed and fsynced
 * as an uploaded part is. Answers CopyPartResult (the part's ETag, its MD5, and LastModified).
 *
 * <p>Refusals change nothing: an unknown upload is 404 NoSuchUpload and a bad part number or malformed range 400
 * InvalidArgument, before the source is read; a missing source is 404 NoSuchKey, a range past its end 416
 * InvalidRange, and a failed {@code x-amz-copy-source-if-*} 412, before the part is written.
 */
final class UploadPartCopyHandler implements RequestHandler, CopyTransfer.Destination<Part> {
  private final S3ObjectApi api;
  private final ObjectStore store;
  private final BoundedExecutor disk;
  private final CopySource sources;
  private final PartCompletion part;

  private HttpExchange ex;
  private ObjectApi.ObjectRequest dst;
  private CopyTransfer<Part> transfer;

  UploadPartCopyHandler(S3ObjectApi api, ObjectStore store, MultipartStore multipart, BoundedExecutor disk,
      CopySource sources) {
    this.api = api;
    this.store = store;
    this.disk = disk;
    this.sources = sources;
    this.part = new PartCompletion(multipart);
  }

  @Override
  public void onRequest(HttpExchange exchange) throws IOException {
    this.ex = exchange;
    dst = api.read(ex);
    part.check(ex, dst); // part number, and the upload exists
    CopySource.Key src = CopySource.parse(ex.header(CopySource.HEADER));
    CopyRange range = CopyRange.parse(ex.header(CopyRange.HEADER));
    BucketProps srcBucket = sources.bucket(src.bucket());
    transfer = new CopyTransfer<>(ex, api.cluster(), store, disk, sources, this);
    transfer.start(srcBucket, src.key(), range, this::answer);
  }

  /**
   * The part is written like an uploaded one: its length declared, its MD5 its ETag, and its upload's flexible
   * checksum computed over the bytes copied.
   */
  @Override
  public PutOperation begin(CopyTransfer.Source source) throws IOException {
    CopyRange.requireCopyable(source.length());
    return store.beginPut(dst.bucket(), dst.name(),
        part.options(new PutOptions(source.length(), List.of(), true, null, Map.of())));
  }

  @Override
  public Part finish(PutOperation op) throws IOException {
    return part.add(op);
  }

  @Override
  public void onAbort(HttpExchange exchange, Throwable cause) {
    if (transfer != null) {
      transfer.abort();
    }
  }

  private void answer(Part p, Throwable err) {
    if (err != null) {
      ex.sendError(ControlClient.cause(err));
    } else {
      S3Responses.xml(ex, HttpResponseStatus.OK, new CopyPartResult(Instant.ofEpochMilli(p.mtime()), p.md5()));
    }
  }
}
