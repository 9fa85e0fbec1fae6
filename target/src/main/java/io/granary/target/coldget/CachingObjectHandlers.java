package io.granary.target.coldget;

import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.RequestHandler;
import io.granary.target.http.ObjectApi;
import io.granary.target.http.ObjectHandlers;
import io.granary.target.http.ObjectPutHandler;
import io.granary.target.http.WarmValidation;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.PutOperation;
import java.io.IOException;

/** Object handlers that cache remote buckets: cold GET and revalidation, write-through PUT, delete on both sides. */
public final class CachingObjectHandlers implements ObjectHandlers {
  private final ColdObjects cold;
  private final BoundedExecutor disk;
  private final WarmValidation validation;

  public CachingObjectHandlers(ColdObjects cold, BoundedExecutor disk) {
    this(cold, disk, WarmValidation.OFF);
  }

  /** @param validation validation of warm GETs ({@code checksum.validateWarmGet}) */
  public CachingObjectHandlers(ColdObjects cold, BoundedExecutor disk, WarmValidation validation) {
    this.cold = cold;
    this.disk = disk;
    this.validation = validation;
  }

  @Override
  public RequestHandler get(ObjectApi api) {
    return new RemoteGetHandler(api, cold, validation);
  }

  @Override
  public RequestHandler put(ObjectApi api) {
    return new ObjectPutHandler(api, cold.store(), disk, new WriteThrough(api, cold));
  }

  @Override
  public RequestHandler delete(ObjectApi api) {
    return new RemoteDeleteHandler(api, cold, disk);
  }

  @Override
  public ObjectMeta commit(PutOperation op) throws IOException {
    return WriteThrough.commit(cold, op);
  }
}
