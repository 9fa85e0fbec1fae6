package io.granary.common.control;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.granary.clustermap.ClusterJson;
import java.io.UncheckedIOException;

/**
 * A request body serialized once, to send the same bytes in many calls: metasync sends one cluster's metadata
 * (about 100 KB at 1,000 nodes) to every node, and serializing it per node cost the primary about 0.4 s of CPU per
 * push. Immutable; the bytes are shared by every request that sends them.
 */
public final class JsonBody {
  private final byte[] bytes;

  private JsonBody(byte[] bytes) {
    this.bytes = bytes;
  }

  /** {@code value} as JSON in the cluster form ({@link ClusterJson}); a JsonBody as it is. */
  public static JsonBody of(Object value) {
    if (value instanceof JsonBody b) {
      return b;
    }
    try {
      return new JsonBody(ClusterJson.mapper().writeValueAsBytes(value));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("cannot serialize " + value.getClass().getName() + " as JSON", e);
    }
  }

  public int length() {
    return bytes.length;
  }

  /** The serialized bytes, shared: callers must not modify them. */
  byte[] bytes() {
    return bytes;
  }
}
