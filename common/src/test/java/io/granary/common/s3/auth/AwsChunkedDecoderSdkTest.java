package io.granary.common.s3.auth;

import static io.granary.common.s3.auth.AwsChunkedDecoderTest.indexOf;
import static io.granary.common.s3.auth.SigV4VerifierTest.assertRejected;
import static org.assertj.core.api.Assertions.assertThat;

import io.granary.common.s3.auth.ChunkFeeder.Split;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.checksums.DefaultChecksumAlgorithm;
import software.amazon.awssdk.checksums.SdkChecksum;
import software.amazon.awssdk.checksums.spi.ChecksumAlgorithm;
import software.amazon.awssdk.http.SdkHttpMethod;

/**
 * aws-chunked bodies encoded by aws-sdk-java-v2 (128 KiB chunks, so 140000 bytes make two data chunks and the final
 * one): signed chunks, signed chunks with a signed checksum trailer, and unsigned chunks with a checksum trailer.
 * They decode to the original bytes however they are split, and any flipped byte is refused.
 */
class AwsChunkedDecoderSdkTest {
  private static final byte[] DATA = data(140_000);

  /** An SDK encoding: whether chunks are signed, and the checksum trailer (null for none). */
  record Encoding(boolean signed, ChecksumAlgorithm checksum) {
    @Override
    public String toString() {
      return (signed ? "signed" : "unsigned") + (checksum == null ? "" : "+" + checksum.algorithmId());
    }
  }

  static List<Encoding> encodings() {
    List<Encoding> e = new ArrayList<>();
    e.add(new Encoding(true, null));
    for (ChecksumAlgorithm c : List.of(DefaultChecksumAlgorithm.CRC32, DefaultChecksumAlgorithm.CRC32C,
        DefaultChecksumAlgorithm.SHA1, DefaultChecksumAlgorithm.SHA256)) {
      e.add(new Encoding(true, c));
      e.add(new Encoding(false, c));
    }
    return e;
  }

  static Stream<Arguments> encodingsAndSplits() {
    return encodings().stream().flatMap(e -> Stream.of(Split.values()).map(s -> Arguments.of(e, s)));
  }

  static Stream<Encoding> signedEncodings() {
    return encodings().stream().filter(Encoding::signed);
  }

  static Stream<Encoding> trailerEncodings() {
    return encodings().stream().filter(e -> e.checksum() != null);
  }

  @ParameterizedTest
  @MethodSource("encodingsAndSplits")
  void decode_sdkBody_yieldsOriginalBytes(Encoding encoding, Split split) {
    SdkSigning.Signed s = encode(encoding);
    AwsChunkedDecoder d = decoder(s);

    byte[] out = ChunkFeeder.decode(d, s.body(), split);

    assertThat(out).isEqualTo(DATA);
    assertThat(d.complete()).isTrue();
    if (encoding.checksum() == null) {
      assertThat(d.checksum()).isEmpty();
    } else {
      SdkChecksum expected = SdkChecksum.forAlgorithm(encoding.checksum());
      expected.update(DATA);
      assertThat(d.checksum()).hasValueSatisfying(c -> {
        assertThat(c.algorithm().header()).isEqualTo("x-amz-checksum-" + encoding.checksum().algorithmId()
            .toLowerCase(Locale.ROOT));
        assertThat(c.base64()).isEqualTo(Base64.getEncoder().encodeToString(expected.getChecksumBytes()));
      });
    }
  }

  @ParameterizedTest
  @MethodSource("encodings")
  void decode_sdkBodyWithFlippedDataByte_isRefused(Encoding encoding) {
    SdkSigning.Signed s = encode(encoding);
    byte[] body = s.body().clone();
    int firstData = indexOf(body, "\r\n") + 2;
    body[firstData + 100_000] ^= 0x20; // in the first 128 KiB chunk

    assertRejected(() -> ChunkFeeder.decode(decoder(s), body, Split.RANDOM),
        encoding.signed() ? "SignatureDoesNotMatch" : "BadDigest", encoding.signed() ? 403 : 400);
  }

  @ParameterizedTest
  @MethodSource("encodings")
  void decode_sdkBodyWithFlippedDataByteInLastChunk_isRefused(Encoding encoding) {
    SdkSigning.Signed s = encode(encoding);
    byte[] body = s.body().clone();
    int lastChunkHeader = indexOf(body, "\r\n" + Integer.toHexString(DATA.length - 2 * 131072)) + 2;
    body[indexOf(body, "\r\n", lastChunkHeader) + 2] ^= 0x01;

    assertRejected(() -> ChunkFeeder.decode(decoder(s), body, Split.SEVEN_BYTES),
        encoding.signed() ? "SignatureDoesNotMatch" : "BadDigest", encoding.signed() ? 403 : 400);
  }

  @ParameterizedTest
  @MethodSource("signedEncodings")
  void decode_sdkBodyWithFlippedChunkSignature_isSignatureDoesNotMatch(Encoding encoding) {
    SdkSigning.Signed s = encode(encoding);
    byte[] body = s.body().clone();
    int sig = indexOf(body, ";chunk-signature=") + ";chunk-signature=".length();
    body[sig] = (byte) (body[sig] == 'a' ? 'b' : 'a');

    assertRejected(() -> ChunkFeeder.decode(decoder(s), body, Split.WHOLE), "SignatureDoesNotMatch", 403);
  }

  @ParameterizedTest
  @MethodSource("trailerEncodings")
  void decode_sdkBodyWithFlippedChecksumTrailer_isRefused(Encoding encoding) {
    SdkSigning.Signed s = encode(encoding);
    byte[] body = s.body().clone();
    int value = indexOf(body, "x-amz-checksum-") + ("x-amz-checksum-" + encoding.checksum().algorithmId() + ":")
        .length();
    body[value] = (byte) (body[value] == 'A' ? 'B' : 'A');

    // A signed trailer fails its signature first; an unsigned one reaches the checksum comparison.
    assertRejected(() -> ChunkFeeder.decode(decoder(s), body, Split.RANDOM),
        encoding.signed() ? "SignatureDoesNotMatch" : "BadDigest", encoding.signed() ? 403 : 400);
  }

  @ParameterizedTest
  @EnumSource(names = {"WHOLE", "ONE_BYTE"})
  void decode_sdkBodyWithFlippedTrailerSignature_isSignatureDoesNotMatch(Split split) {
    SdkSigning.Signed s = encode(new Encoding(true, DefaultChecksumAlgorithm.CRC32C));
    byte[] body = s.body().clone();
    int sig = indexOf(body, "x-amz-trailer-signature:") + "x-amz-trailer-signature:".length() + 63;
    body[sig] = (byte) (body[sig] == '0' ? '1' : '0');

    assertRejected(() -> ChunkFeeder.decode(decoder(s), body, split), "SignatureDoesNotMatch", 403);
  }

  @Test
  void decode_sdkBodyWithoutTrailerSignature_isMalformedTrailerError() {
    SdkSigning.Signed s = encode(new Encoding(true, DefaultChecksumAlgorithm.SHA256));
    String body = new String(s.body(), StandardCharsets.ISO_8859_1);
    String stripped = body.replaceFirst("x-amz-trailer-signature:[0-9a-f]{64}\r\n", "");

    assertRejected(() -> ChunkFeeder.decode(decoder(s), AwsChunkedDecoderTest.ascii(stripped), Split.WHOLE),
        "MalformedTrailerError", 400);
  }

  private static SdkSigning.Signed encode(Encoding e) {
    return SdkSigning.chunked(SdkSigning.request(SdkHttpMethod.PUT, "bucket", "chunked object.bin"), DATA,
        e.signed(), e.checksum());
  }

  private static AwsChunkedDecoder decoder(SdkSigning.Signed s) {
    Authentication auth = SdkSigning.verifier().verify(s.request());
    return AwsChunkedDecoder.forRequest(auth, s.request().headers());
  }

  private static byte[] data(int n) {
    byte[] b = new byte[n];
    new Random(42).nextBytes(b);
    return b;
  }
}
