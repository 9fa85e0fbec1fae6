package io.granary.target.http;

import io.granary.common.control.ControlClient;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.OffLoopWrites;
import io.granary.target.storage.PutOperation;
import io.granary.target.storage.WriteCondition;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PUT of an object: streams the body to a work file while checksumming, then (on the disk pool) verifies the
 * client's checksums ({@link ClientChecksums}), fsyncs and commits. Any failure leaves nothing. A precondition
 * ({@link WritePreconditions}) is checked before the body is read and decided at the commit.
 *
 * <p>The body is written on the disk pool ({@link OffLoopWrites}), not on the event loop: under heavy writing the
 * kernel throttles a writer for tens of milliseconds, which on the loop would stall every request of its connections.
 */
public final class ObjectPutHandler implements RequestHandler {
  private static final Logger log = LoggerFactory.getLogger(ObjectPutHandler.class);

  private final ObjectApi api;
  private final ObjectStore store;
  private final BoundedExecutor disk;
  private final PutCompletion completion;
  private PutOperation op;
  private OffLoopWrites<PutOperation> writes; // op's body, written on the disk pool

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
      writes = new OffLoopWrites<>(op, disk::execute, ex);
    } catch (Exception e) {
      throw StorageErrors.of("starting PUT of " + req.name(), e);
    }
  }

  @Override
  public void onContent(HttpExchange ex, HttpContent chunk) {
    Throwable failed = writes.failure();
    if (failed != null) { // an earlier chunk's write failed (e.g. out of space): answer now, not after the body
      throw StorageErrors.of("writing PUT body of " + op.location().name(), failed);
    }
    writes.write(chunk.content());
  }

  @Override
  public void onEnd(HttpExchange ex) {
    OffLoopWrites<PutOperation> body = writes;
    String name = op.location().name();
    op = null;
    writes = null;
    AtomicReference<PutOperation> written = new AtomicReference<>();
    body.end().thenCompose(put -> {
      written.set(put);
      return disk.submit(() -> completion.complete(put));
    }).whenComplete((headers, err) -> {
      if (err != null) {
        PutOperation put = written.get();
        if (put != null) {
          disk.execute(put::discard);
          ex.sendError(StorageErrors.of("committing " + name, ControlClient.cause(err)));
        } else {
          body.abort(); // a write failed: the work file goes
          ex.sendError(StorageErrors.of("writing PUT body of " + name, ControlClient.cause(err)));
        }
        return;
      }
      ex.sendHead(HttpResponseStatus.OK, headers);
    });
  }

  @Override
  public void onAbort(HttpExchange ex, Throwable cause) {
    PutOperation put = op;
    OffLoopWrites<PutOperation> body = writes;
    op = null;
    writes = null;
    if (put != null) {
      log.debug("node={} bucket={} object={}: PUT aborted after {} bytes: {}", ex.nodeId(),
          put.location().bucket().bucket(), put.location().name(), ex.bodyBytes(), cause.toString());
      body.abort(); // drops what is queued and discards the work file, on the disk pool
    }
  }
}
