package io.granary.target.coldget;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.http.HttpExchange;
import io.granary.target.http.ObjectApi;
import io.granary.target.http.PutCompletion;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.http.WritePreconditions;
import io.granary.target.storage.PutOperation;
import io.granary.target.storage.WriteCondition;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.io.IOException;

/**
 * PUT to a remote bucket: the verified body goes to the remote store first and is committed locally only once
 * the remote has it, recorded as a copy of the version the remote created. If the upload fails, nothing is cached
 * and the client gets the remote's error. Local buckets commit as usual.
 */
final class WriteThrough implements PutCompletion {
  private final ObjectApi api;
  private final ColdObjects cold;

  WriteThrough(ObjectApi api, ColdObjects cold) {
    this.api = api;
    this.cold = cold;
  }

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
    api.describeWrite(h, commit(cold, op));
    return h;
  }

  /** Commits {@code op}: after the remote store has the bytes for a remote bucket, as is for a local one. */
  static ObjectMeta commit(ColdObjects cold, PutOperation op) throws IOException {
    BucketProps bucket = op.location().bucket();
    if (!bucket.isRemote()) {
      return op.finish();
    }
    String name = op.location().name();
    return op.finish((staged, m) -> cold.writeThrough(bucket, name, staged.workFile(), m));
  }
}
