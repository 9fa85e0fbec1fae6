package io.granary.target.http;

import io.granary.common.http.HttpExchange;
import io.granary.target.storage.PutOperation;
import io.granary.target.storage.PutOptions;
import io.granary.target.storage.WriteCondition;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.io.IOException;

/**
 * What a streamed PUT body becomes once complete: a committed object (PutObject) or a part of a multipart
 * upload (UploadPart). The body itself is streamed, hashed and verified the same way in both cases.
 */
public interface PutCompletion {

  /** Checks the request before any byte is written (event loop); throws an ApiException to refuse it. */
  void check(HttpExchange ex, ObjectApi.ObjectRequest req) throws IOException;

  /**
   * The precondition the write must meet at its commit (If-Match / If-None-Match); 400 when malformed. A part of a
   * multipart upload has none: its upload's completion carries it.
   */
  default WriteCondition condition(HttpExchange ex) {
    return WriteCondition.NONE;
  }

  /** The options the write runs with, from those the request asked for (after {@link #check}). */
  default PutOptions options(PutOptions asked) {
    return asked;
  }

  /** Finishes the body and returns the headers of the answer (disk pool). */
  HttpHeaders complete(PutOperation op) throws IOException;

  /** PutObject: commit the body as the object's new version; answer with the headers that describe it. */
  static PutCompletion object(ObjectApi api) {
    return new PutCompletion() {
      @Override
      public void check(HttpExchange ex, ObjectApi.ObjectRequest req) {
      }

      @Override
      public WriteCondition condition(HttpExchange ex) {
        return WritePreconditions.parse(ex.request().headers());
      }

      @Override
      public HttpHeaders complete(PutOperation op) throws IOException {
        HttpHeaders h = new DefaultHttpHeaders();
        api.describeWrite(h, op.finish());
        return h;
      }
    };
  }
}
