package io.granary.target.http;

import io.granary.common.error.ApiException;
import io.granary.common.error.InsufficientStorageException;
import io.granary.common.error.InternalErrorException;
import java.io.IOException;

/** Maps storage I/O failures to API errors: a full disk is 507, anything else 500 naming the operation. */
public final class StorageErrors {
  private StorageErrors() {}

  public static ApiException of(String operation, Throwable t) {
    if (t instanceof ApiException api) {
      return api;
    }
    String msg = String.valueOf(t.getMessage());
    if (t instanceof IOException && (msg.contains("No space left") || msg.contains("Disk quota exceeded"))) {
      return new InsufficientStorageException(operation + " failed: no space left on the mountpath; nothing was stored");
    }
    return new InternalErrorException(operation + " failed: " + t, t);
  }
}
