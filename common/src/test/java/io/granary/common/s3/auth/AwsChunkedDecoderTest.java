package io.granary.common.s3.auth;

import static io.granary.common.s3.auth.SigV4VerifierTest.assertRejected;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.common.s3.auth.ChunkFeeder.Split;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The decoder on the S3 API reference's chunked upload example, on a body recorded from botocore, and on every kind
 * of malformed body.
 */
class AwsChunkedDecoderTest {
  private static final byte[] EXAMPLE_DATA = "a".repeat(65536 + 1024).getBytes(StandardCharsets.US_ASCII);

  // ---------------------------------------------------------------- the AWS example

  @ParameterizedTest
  @EnumSource(Split.class)
  void decode_awsChunkedUploadExample_verifiesEveryChunkSignature(Split split) {
    AwsChunkedDecoder d = exampleDecoder();

    byte[] out = ChunkFeeder.decode(d, AwsExamples.chunkedBody(), split);

    assertThat(out).isEqualTo(EXAMPLE_DATA);
    assertThat(d.complete()).isTrue();
    assertThat(d.decodedBytes()).isEqualTo(66560);
    assertThat(d.checksum()).isEmpty();
  }

  @Test
  void chunkSigner_awsExample_producesPublishedChunkSignatures() {
    ChunkSigner s = AwsExamples.verifier().verify(AwsExamples.chunkedPut()).chunkSigner();
    byte[] chunk1 = Sha256.newDigest().digest(Arrays.copyOf(EXAMPLE_DATA, 65536));
    byte[] chunk2 = Sha256.newDigest().digest(Arrays.copyOf(EXAMPLE_DATA, 1024));

    String sig1 = s.chunkSignature(AwsExamples.CHUNKED_SEED, chunk1);
    String sig2 = s.chunkSignature(sig1, chunk2);
    String sig3 = s.chunkSignature(sig2, Sha256.newDigest().digest());

    assertThat(sig1).isEqualTo(AwsExamples.CHUNK1_SIGNATURE);
    assertThat(sig2).isEqualTo(AwsExamples.CHUNK2_SIGNATURE);
    assertThat(sig3).isEqualTo(AwsExamples.FINAL_CHUNK_SIGNATURE);
  }

  @Test
  void decode_awsExampleWithFlippedDataByte_isSignatureDoesNotMatch() {
    byte[] body = AwsExamples.chunkedBody();
    int dataStart = indexOf(body, "\r\n") + 2;
    body[dataStart + 40_000] = 'b';

    assertRejected(() -> ChunkFeeder.decode(exampleDecoder(), body, Split.RANDOM), "SignatureDoesNotMatch", 403);
  }

  @Test
  void decode_awsExampleWithAnyChunkSignatureChanged_isSignatureDoesNotMatch() {
    for (String sig : List.of(AwsExamples.CHUNK1_SIGNATURE, AwsExamples.CHUNK2_SIGNATURE,
        AwsExamples.FINAL_CHUNK_SIGNATURE)) {
      byte[] body = AwsExamples.chunkedBody();
      int at = indexOf(body, sig) + 10;
      body[at] = (byte) (body[at] == '0' ? '1' : '0');

      assertRejected(() -> ChunkFeeder.decode(exampleDecoder(), body, Split.WHOLE), "SignatureDoesNotMatch", 403);
    }
  }

  @Test
  void decode_awsExampleChunksSwapped_isRefused() {
    // Reordering chunks breaks the chain even where each chunk's own signature is genuine.
    String body = new String(AwsExamples.chunkedBody(), StandardCharsets.US_ASCII);
    int second = body.indexOf("400;chunk-signature=");
    int last = body.indexOf("0;chunk-signature=" + AwsExamples.FINAL_CHUNK_SIGNATURE);
    String swapped = body.substring(second, last) + body.substring(0, second) + body.substring(last);

    assertRejected(() -> ChunkFeeder.decode(exampleDecoder(), swapped.getBytes(StandardCharsets.US_ASCII),
        Split.WHOLE), "SignatureDoesNotMatch", 403);
  }

  @Test
  void decode_awsExampleCutShort_isIncompleteBodyAtFinish() {
    byte[] body = AwsExamples.chunkedBody();
    for (int cut : new int[] {0, 10, 100, 65_626, body.length - 3, body.length - 1}) {
      AwsChunkedDecoder d = exampleDecoder();
      ChunkFeeder.feedOnly(d, Arrays.copyOf(body, cut), Split.RANDOM);

      assertThat(d.complete()).isFalse();
      assertRejected(d::finish, "IncompleteBody", 400);
    }
  }

  @Test
  void feed_afterTheEnd_isIncompleteBody() {
    byte[] body = Arrays.copyOf(AwsExamples.chunkedBody(), AwsExamples.chunkedBody().length + 2);
    body[body.length - 2] = '\r';
    body[body.length - 1] = '\n';

    assertRejected(() -> ChunkFeeder.decode(exampleDecoder(), body, Split.WHOLE), "IncompleteBody", 400);
  }

  @Test
  void feed_afterFailure_isIllegalState() {
    AwsChunkedDecoder d = unsignedTrailer(List.of(), 3);
    assertRejected(() -> ChunkFeeder.feedOnly(d, ascii("zz\r\n"), Split.WHOLE), "InvalidChunkSizeError", 400);

    assertThatThrownBy(() -> ChunkFeeder.feedOnly(d, ascii("3\r\n"), Split.WHOLE))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(d::finish).isInstanceOf(IllegalStateException.class);
  }

  // ---------------------------------------------------------------- botocore

  /**
   * Recorded from botocore 1.43's AwsChunkedWrapper (Crc32Checksum, chunk_size=128) over 300 bytes
   * {@code (i * 7 + 3) % 251}: its STREAMING-UNSIGNED-PAYLOAD-TRAILER framing and trailer value.
   */
  @ParameterizedTest
  @EnumSource(Split.class)
  void decode_botocoreUnsignedTrailerBody_verifiesCrc32(Split split) {
    byte[] data = new byte[300];
    for (int i = 0; i < data.length; i++) {
      data[i] = (byte) ((i * 7 + 3) % 251);
    }
    byte[] body = concat(ascii("80\r\n"), Arrays.copyOfRange(data, 0, 128), ascii("\r\n80\r\n"),
        Arrays.copyOfRange(data, 128, 256), ascii("\r\n2c\r\n"), Arrays.copyOfRange(data, 256, 300),
        ascii("\r\n0\r\nx-amz-checksum-crc32:IlLscg==\r\n\r\n"));
    AwsChunkedDecoder d = unsignedTrailer(List.of("x-amz-checksum-crc32"), 300);

    assertThat(ChunkFeeder.decode(d, body, split)).isEqualTo(data);
    assertThat(d.checksum()).contains(new VerifiedChecksum(ChecksumAlgorithm.CRC32, "IlLscg=="));
  }

  // ---------------------------------------------------------------- framing

  @Test
  void decode_emptyBodyWithChecksum_isComplete() {
    AwsChunkedDecoder d = unsignedTrailer(List.of("x-amz-checksum-crc32"), 0);

    assertThat(ChunkFeeder.decode(d, ascii("0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n"), Split.ONE_BYTE)).isEmpty();
    assertThat(d.checksum().map(VerifiedChecksum::base64)).contains("AAAAAA==");
  }

  @Test
  void decode_upperCaseHexSizeAndTrailerNameCase_areAccepted() {
    AwsChunkedDecoder d = unsignedTrailer(List.of("X-Amz-Checksum-CRC32"), 10);

    byte[] out = ChunkFeeder.decode(d, ascii("A\r\n0123456789\r\n0\r\nX-AMZ-CHECKSUM-CRC32: " + crc32("0123456789")
        + "\r\n\r\n"), Split.SEVEN_BYTES);

    assertThat(new String(out, StandardCharsets.US_ASCII)).isEqualTo("0123456789");
  }

  @Test
  void decode_moreDataThanDeclared_isIncompleteBody() {
    assertRejected(() -> ChunkFeeder.decode(unsignedTrailer(List.of(), 5), ascii("3\r\nabc\r\n3\r\ndef\r\n0\r\n\r\n"),
        Split.WHOLE), "IncompleteBody", 400);
  }

  @Test
  void decode_finalChunkBeforeDeclaredLength_isIncompleteBody() {
    assertRejected(() -> ChunkFeeder.decode(unsignedTrailer(List.of(), 7), ascii("3\r\nabc\r\n0\r\n\r\n"),
        Split.WHOLE), "IncompleteBody", 400);
  }

  @Test
  void decode_noFinalChunk_isIncompleteBodyAtFinish() {
    assertRejected(() -> ChunkFeeder.decode(unsignedTrailer(List.of(), 3), ascii("3\r\nabc\r\n"), Split.WHOLE),
        "IncompleteBody", 400);
    assertRejected(() -> ChunkFeeder.decode(unsignedTrailer(List.of(), 3), ascii("3\r\nabc\r\n0\r\n"), Split.WHOLE),
        "IncompleteBody", 400);
  }

  @Test
  void decode_badChunkSizes_areInvalidChunkSizeError() {
    for (String body : List.of("zz\r\n", "\r\n", "-3\r\nabc\r\n", " 3\r\nabc\r\n", "3 \r\nabc\r\n",
        "1000000000000000\r\n", "0x3\r\nabc\r\n")) {
      assertRejected(() -> ChunkFeeder.decode(unsignedTrailer(List.of(), 3), ascii(body), Split.WHOLE),
          "InvalidChunkSizeError", 400);
    }
  }

  @Test
  void decode_missingCrlf_isInvalidChunkSizeError() {
    for (String body : List.of("3\nabc\r\n0\r\n\r\n", "3\r\nabcX\r\n0\r\n\r\n", "3\r\nabc\n0\r\n\r\n",
        "3\r\nabc\r\r0\r\n\r\n")) {
      assertRejected(() -> ChunkFeeder.decode(unsignedTrailer(List.of(), 3), ascii(body), Split.ONE_BYTE),
          "InvalidChunkSizeError", 400);
    }
  }

  @Test
  void decode_chunkHeaderLongerThan4096_isInvalidChunkSizeError() {
    byte[] endless = new byte[10_000];
    Arrays.fill(endless, (byte) '0');
    for (Split split : List.of(Split.WHOLE, Split.SEVEN_BYTES)) {
      AwsChunkedDecoder d = unsignedTrailer(List.of(), 3);
      assertRejected(() -> ChunkFeeder.feedOnly(d, endless, split), "InvalidChunkSizeError", 400);
    }
  }

  @Test
  void decode_trailerLineOf4096Bytes_isAcceptedAndOneMoreIsNot() {
    String trailer = "x-amz-checksum-crc32:" + crc32("abc");
    String fits = trailer + " ".repeat(AwsChunkedDecoder.MAX_LINE - trailer.length());
    byte[] ok = ascii("3\r\nabc\r\n0\r\n" + fits + "\r\n\r\n");
    byte[] tooLong = ascii("3\r\nabc\r\n0\r\n" + fits + " \r\n\r\n");

    assertThat(ChunkFeeder.decode(unsignedTrailer(List.of("x-amz-checksum-crc32"), 3), ok, Split.RANDOM))
        .isEqualTo(ascii("abc"));
    assertRejected(() -> ChunkFeeder.decode(unsignedTrailer(List.of("x-amz-checksum-crc32"), 3), tooLong,
        Split.RANDOM), "MalformedTrailerError", 400);
  }

  @Test
  void decode_signedChunkWithoutSignature_isInvalidChunkSizeError() {
    byte[] body = ascii(new String(AwsExamples.chunkedBody(), StandardCharsets.US_ASCII)
        .replaceFirst(";chunk-signature=" + AwsExamples.CHUNK1_SIGNATURE, ""));

    assertRejected(() -> ChunkFeeder.decode(exampleDecoder(), body, Split.WHOLE), "InvalidChunkSizeError", 400);
  }

  @Test
  void decode_unsignedChunkWithExtension_isInvalidChunkSizeError() {
    assertRejected(() -> ChunkFeeder.decode(unsignedTrailer(List.of(), 3),
        ascii("3;chunk-signature=" + "0".repeat(64) + "\r\nabc\r\n0\r\n\r\n"), Split.WHOLE), "InvalidChunkSizeError",
        400);
  }

  @Test
  void decode_undeclaredDuplicateOrMissingTrailer_isMalformedTrailerError() {
    String crc = crc32("abc");
    for (String tail : List.of("x-amz-checksum-sha256:" + crc + "\r\n\r\n", "no-colon\r\n\r\n",
        "x-amz-checksum-crc32:" + crc + "\r\nx-amz-checksum-crc32:" + crc + "\r\n\r\n", "\r\n",
        "x-amz-checksum-crc32:" + crc + "\r\nx-amz-trailer-signature:" + "0".repeat(64) + "\r\n\r\n")) {
      assertRejected(() -> ChunkFeeder.decode(unsignedTrailer(List.of("x-amz-checksum-crc32"), 3),
          ascii("3\r\nabc\r\n0\r\n" + tail), Split.WHOLE), "MalformedTrailerError", 400);
    }
  }

  @Test
  void decode_trailerInStreamingSignedBody_isMalformedTrailerError() {
    String body = new String(AwsExamples.chunkedBody(), StandardCharsets.US_ASCII);
    byte[] withTrailer = ascii(body.substring(0, body.length() - 2) + "x-amz-checksum-crc32:AAAAAA==\r\n\r\n");

    assertRejected(() -> ChunkFeeder.decode(exampleDecoder(), withTrailer, Split.WHOLE), "MalformedTrailerError", 400);
  }

  @Test
  void decode_wrongChecksum_isBadDigest() {
    assertRejected(() -> ChunkFeeder.decode(unsignedTrailer(List.of("x-amz-checksum-crc32"), 3),
        ascii("3\r\nabc\r\n0\r\nx-amz-checksum-crc32:" + crc32("abd") + "\r\n\r\n"), Split.WHOLE), "BadDigest", 400);
  }

  @Test
  void decode_checksumNotBase64_isInvalidRequest() {
    assertRejected(() -> ChunkFeeder.decode(unsignedTrailer(List.of("x-amz-checksum-crc32"), 3),
        ascii("3\r\nabc\r\n0\r\nx-amz-checksum-crc32:!!notbase64\r\n\r\n"), Split.WHOLE), "InvalidRequest", 400);
  }

  // ---------------------------------------------------------------- construction

  @Test
  void constructor_trailerWithoutTrailerMode_isInvalidRequest() {
    Authentication signed = AwsExamples.verifier().verify(AwsExamples.chunkedPut());

    assertRejected(() -> new AwsChunkedDecoder(signed, List.of("x-amz-checksum-crc32"), 1), "InvalidRequest", 400);
  }

  @Test
  void constructor_unsupportedTrailers_areRefused() {
    assertRejected(() -> unsignedTrailer(List.of("x-amz-meta-foo"), 1), "InvalidRequest", 400);
    assertRejected(() -> unsignedTrailer(List.of("x-amz-checksum-md5"), 1), "NotImplemented", 501);
    assertRejected(() -> unsignedTrailer(List.of("x-amz-checksum-crc32", "x-amz-checksum-sha1"), 1),
        "InvalidRequest", 400);
  }

  @Test
  void constructor_nonStreamingModeOrNegativeLength_isIllegalArgument() {
    Authentication plain = AwsExamples.verifier().verify(AwsExamples.getObject());

    assertThatThrownBy(() -> new AwsChunkedDecoder(plain, List.of(), 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> unsignedTrailer(List.of(), -1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void forRequest_readsDecodedLengthAndTrailerHeaders() {
    AwsChunkedDecoder d = AwsChunkedDecoder.forRequest(unsignedTrailerAuth(), AwsExamples.headers(
        "x-amz-decoded-content-length", "3", "x-amz-trailer", "x-amz-checksum-crc32c"));

    ChunkFeeder.decode(d, ascii("3\r\nabc\r\n0\r\nx-amz-checksum-crc32c:" + crc32c("abc") + "\r\n\r\n"), Split.WHOLE);

    assertThat(d.checksum().map(VerifiedChecksum::algorithm)).contains(ChecksumAlgorithm.CRC32C);
  }

  @Test
  void forRequest_missingOrBadDecodedLength_isRefused() {
    assertRejected(() -> AwsChunkedDecoder.forRequest(unsignedTrailerAuth(), AwsExamples.headers()),
        "MissingContentLength", 411);
    assertRejected(() -> AwsChunkedDecoder.forRequest(unsignedTrailerAuth(),
        AwsExamples.headers("x-amz-decoded-content-length", "-1")), "InvalidArgument", 400);
    assertRejected(() -> AwsChunkedDecoder.forRequest(unsignedTrailerAuth(),
        AwsExamples.headers("x-amz-decoded-content-length", "12abc")), "InvalidArgument", 400);
  }

  // ---------------------------------------------------------------- helpers

  private static AwsChunkedDecoder exampleDecoder() {
    SignedRequest r = AwsExamples.chunkedPut();
    return AwsChunkedDecoder.forRequest(AwsExamples.verifier().verify(r), r.headers());
  }

  /** An unsigned-trailer request's authentication; its signer is never used for unsigned chunks. */
  static Authentication unsignedTrailerAuth() {
    ChunkSigner signer = new ChunkSigner(SigningKey.derive("secret", "20240601", "r", "s3"), "20240601T120000Z",
        "20240601/r/s3/aws4_request");
    return new Authentication("AK", PayloadMode.STREAMING_UNSIGNED_TRAILER, null, "0".repeat(64), signer);
  }

  private static AwsChunkedDecoder unsignedTrailer(List<String> trailers, long length) {
    return new AwsChunkedDecoder(unsignedTrailerAuth(), trailers, length);
  }

  static String crc32(String s) {
    return checksum(ChecksumAlgorithm.CRC32, s);
  }

  static String crc32c(String s) {
    return checksum(ChecksumAlgorithm.CRC32C, s);
  }

  private static String checksum(ChecksumAlgorithm a, String s) {
    ChecksumAlgorithm.Running r = a.start();
    r.update(Unpooled.wrappedBuffer(ascii(s)).nioBuffer());
    return Base64.getEncoder().encodeToString(r.finish());
  }

  static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  static byte[] concat(byte[]... parts) {
    int n = 0;
    for (byte[] p : parts) {
      n += p.length;
    }
    byte[] out = new byte[n];
    int off = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, off, p.length);
      off += p.length;
    }
    return out;
  }

  static int indexOf(byte[] body, String s) {
    return indexOf(body, s, 0);
  }

  static int indexOf(byte[] body, String s, int from) {
    return new String(body, StandardCharsets.ISO_8859_1).indexOf(s, from);
  }
}
