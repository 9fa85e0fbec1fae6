package io.granary.target.http;

import io.granary.common.control.ControlClient;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.PutOperation;
import io.granary.target.storage.WriteCondition;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponseStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PUT of an object: streams the body to a work file while checksumming, then (on the disk pool) verifies the
 * client's checksums ({@link ClientChecksums}), fsyncs and commits. Any failure leaves nothing. A precondition
 * ({@link WritePreconditions}) is checked before the body is read and decided at the commit.
 */
public final class ObjectPutHandler implements RequestHandler {
  private static final Logger log = LoggerFactory.getLogger(ObjectPutHandler.class);

  private final ObjectApi api;
  private final ObjectStore store;
  private final BoundedExecutor disk;
  private final PutCompletion completion;
  private PutOperation op;

  public ObjectPutHandler(ObjectApi api, ObjectStore store, BoundedExecutor disk, PutCompletion completion) {
    this.api = api;
    this.store = store;
    this.disk = disk;
    this.completion = completion;
  }

  @Override
  public void onRequest(HttpExchange ex) {
    ex.useErrorRenderer(api.errors());
    ObjectApi.ObjectRequest req = api.read(ex);
    try {
      completion.check(ex, req);
      WriteCondition condition = completion.condition(ex);
      // Early, before a byte is received: a condition that fails now is answered at once. The commit decides.
      if (!condition.isNone()) {
        condition.check(store.stat(req.bucket(), req.name()), req.bucket().bucket().toString(), req.name());
      }
      op = store.beginPut(req.bucket(), req.name(), completion.options(api.putOptions(ex).withCondition(condition)));
    } catch (Exception e) {
      throw StorageErrors.of("starting PUT of " + req.name(), e);
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
    disk.submit(() -> completion.complete(put)).whenComplete((headers, err) -> {
      if (err != null) {
        put.discard();
        ex.sendError(StorageErrors.of("committing " + put.location().name(), ControlClient.cause(err)));
        return;
      }
      ex.sendHead(HttpResponseStatus.OK, headers);
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
}
