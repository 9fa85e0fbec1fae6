package io.granary.target.s3;

import io.granary.clustermap.acl.CannedAcl;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.control.ControlClient;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.s3.CopyObjectResult;
import io.granary.common.s3.S3ApiException;
import io.granary.common.s3.S3Responses;
import io.granary.target.http.ObjectApi;
import io.granary.target.http.ObjectHandlers;
import io.granary.target.http.WritePreconditions;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.PutOperation;
import io.granary.target.storage.PutOptions;
import io.granary.target.storage.WriteCondition;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.time.Instant;
import java.util.List;

/**
 * CopyObject ({@code PUT /s3/BUCKET/KEY} with {@code x-amz-copy-source: /SRC_BUCKET/SRC_KEY}): the destination
 * target reads the source from its own disk or from the owning target ({@link CopyTransfer}) and stores it like a PUT
 * (streamed, hashed, fsynced, committed). {@code x-amz-metadata-directive} COPY (default) keeps the source's
 * Content-Type and user metadata; REPLACE takes the request's. {@code x-amz-copy-source-if-*} conditions give 412;
 * {@code If-Match} and {@code If-None-Match: *} are preconditions on the destination, decided when the copy is
 * committed.
 *
 * <p>Remote buckets on either side: a source in a remote bucket is always read through the owner's caching GET
 * (this target's own included), so an uncached or stale source is fetched like any cold GET; a destination in a
 * remote bucket is committed through {@link ObjectHandlers#commit}, i.e. written through to its remote store
 * before it is cached, and nothing is cached if the remote refuses it.
 */
final class CopyObjectHandler implements RequestHandler, CopyTransfer.Destination<ObjectMeta> {
  static final String COPY_SOURCE = CopySource.HEADER;

  private final S3ObjectApi api;
  private final ObjectStore store;
  private final BoundedExecutor disk;
  private final CopySource sources;
  private final ObjectHandlers handlers;

  private HttpExchange ex;
  private ObjectApi.ObjectRequest dst;
  private boolean replace;
  private WriteCondition condition; // If-Match / If-None-Match on the destination, decided at its commit
  private CopyTransfer<ObjectMeta> transfer;

  CopyObjectHandler(S3ObjectApi api, ObjectStore store, BoundedExecutor disk, CopySource sources,
      ObjectHandlers handlers) {
    this.api = api;
    this.handlers = handlers;
    this.store = store;
    this.disk = disk;
    this.sources = sources;
  }

  @Override
  public void onRequest(HttpExchange exchange) throws IOException {
    this.ex = exchange;
    dst = api.read(ex);
    String directive = ex.header("x-amz-metadata-directive");
    if (directive != null && !directive.equalsIgnoreCase("COPY") && !directive.equalsIgnoreCase("REPLACE")) {
      throw S3ApiException.invalidArgument("x-amz-metadata-directive must be COPY or REPLACE",
          "x-amz-metadata-directive", directive);
    }
    replace = "REPLACE".equalsIgnoreCase(directive);
    CopySource.Key src = CopySource.parse(ex.header(COPY_SOURCE));
    BucketProps srcBucket = sources.bucket(src.bucket());
    if (!replace && srcBucket.equals(dst.bucket()) && src.key().equals(dst.name())) {
      throw new S3ApiException(HttpResponseStatus.BAD_REQUEST, "InvalidRequest", "This copy request is illegal "
          + "because it is trying to copy an object to itself without changing the object's metadata");
    }
    condition = WritePreconditions.parse(ex.request().headers());
    if (!condition.isNone()) { // early, before the source is read; the commit decides
      condition.check(store.stat(dst.bucket(), dst.name()), dst.bucket().bucket().toString(), dst.name());
    }
    transfer = new CopyTransfer<>(ex, api.cluster(), store, disk, sources, this);
    transfer.start(srcBucket, src.key(), null, this::answer);
  }

  /**
   * The copy's attributes: the source's (COPY), or those of the request (REPLACE). Its ACL is the request's
   * {@code x-amz-acl} (private without one) either way: S3 never copies a source's ACL.
   */
  @Override
  public PutOperation begin(CopyTransfer.Source source) throws IOException {
    PutOptions options;
    CannedAcl acl = S3ObjectApi.acl(ex);
    if (replace) {
      HttpHeaders h = ex.request().headers();
      options = new PutOptions(source.length(), List.of(), true, h.get(HttpHeaderNames.CONTENT_TYPE),
          S3ObjectApi.userMeta(h), S3ObjectApi.storedHeaders(h), condition, acl);
    } else {
      options = new PutOptions(source.length(), List.of(), true, source.contentType(), source.userMeta(),
          source.headers(), condition, acl);
    }
    // x-amz-checksum-algorithm asks for a checksum of the copy, kept with it (computed over the bytes copied).
    return store.beginPut(dst.bucket(), dst.name(),
        options.withFlexible(UploadChecksumHeaders.algorithm(ex.request().headers())));
  }

  @Override
  public ObjectMeta finish(PutOperation op) throws IOException {
    return handlers.commit(op);
  }

  @Override
  public void onAbort(HttpExchange exchange, Throwable cause) {
    if (transfer != null) {
      transfer.abort();
    }
  }

  private void answer(ObjectMeta meta, Throwable err) {
    if (err != null) {
      ex.sendError(ControlClient.cause(err));
    } else {
      S3Responses.xml(ex, HttpResponseStatus.OK,
          new CopyObjectResult(Instant.ofEpochMilli(meta.mtime()), meta.effectiveEtag(), FlexibleChecksums.of(meta)));
    }
  }
}
