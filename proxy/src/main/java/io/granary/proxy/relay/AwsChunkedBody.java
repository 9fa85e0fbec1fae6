package io.granary.proxy.relay;

import io.granary.common.http.relay.RequestBody;
import io.granary.common.s3.auth.AwsChunkedDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.function.Consumer;

/**
 * An {@code aws-chunked} body (what aws-sdk-java-v2 and other SDKs send): decoded on the way to the target, its
 * chunk signatures and checksum trailer verified; the target receives only the object's bytes.
 */
public final class AwsChunkedBody implements RequestBody {
  private final AwsChunkedDecoder decoder;
  private final long decodedLength;

  public AwsChunkedBody(AwsChunkedDecoder decoder, long decodedLength) {
    this.decoder = decoder;
    this.decodedLength = decodedLength;
  }

  @Override
  public void accept(ByteBuf chunk, Consumer<ByteBuf> out) {
    decoder.feed(chunk, out);
  }

  @Override
  public HttpHeaders finish() {
    decoder.finish(); // chunk signatures, trailer signature and checksum: all verified, or this throws
    return EmptyHttpHeaders.INSTANCE;
  }

  @Override
  public String checksumTrailer() {
    return decoder.checksumTrailer();
  }

  @Override
  public long decodedLength() {
    return decodedLength;
  }
}
