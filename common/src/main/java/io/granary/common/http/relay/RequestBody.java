package io.granary.common.http.relay;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.function.Consumer;

/**
 * How a relayed request body is turned into what the target receives: passed through as is, or decoded from
 * {@code aws-chunked}, and verified on the way (payload hash, chunk signatures, checksum trailers). One per
 * request; runs on the event loop.
 */
public interface RequestBody {

  /** Passes the bytes of {@code chunk} that belong to the object on to {@code out} as retained slices (no copy). */
  void accept(ByteBuf chunk, Consumer<ByteBuf> out);

  /**
   * The client's body has ended. Throws an {@code ApiException} when verification fails; the relay then never
   * completes the upstream request, so the target stores nothing.
   *
   * @return trailing headers for the target (e.g. a verified {@code x-amz-checksum-*}), possibly empty
   */
  HttpHeaders finish();

  /**
   * The name of the checksum trailer this body ends with ({@code x-amz-checksum-crc32}...), which {@link #finish}
   * verifies; null when it has none.
   */
  default String checksumTrailer() {
    return null;
  }

  /** The length of the object's bytes, when known in advance (-1 otherwise). */
  long decodedLength();
}
