package io.granary.common.s3.auth;

import io.granary.common.error.ChecksumMismatchException;
import io.granary.common.error.IncompleteBodyException;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Decodes one request's {@code Content-Encoding: aws-chunked} body as its ByteBufs arrive, on the connection's
 * event loop: never blocks, not thread-safe, one instance per request.
 *
 * <p>The body is {@code hex-size[;chunk-signature=SIG]\r\n DATA \r\n}, repeated, ending with a zero-size chunk,
 * then (in trailer modes) {@code name:value\r\n} trailer lines, {@code x-amz-trailer-signature:SIG\r\n} for signed
 * trailers, and a final {@code \r\n}. Chunk signatures chain from the request's seed signature:
 * {@code HMAC(kSigning, "AWS4-HMAC-SHA256-PAYLOAD\n" + amzDate + "\n" + scope + "\n" + previous + "\n" +
 * hex(sha256("")) + "\n" + hex(sha256(data)))}; the trailer signature is
 * {@code HMAC(kSigning, "AWS4-HMAC-SHA256-TRAILER\n" + amzDate + "\n" + scope + "\n" + previous + "\n" +
 * hex(sha256(trailers)))} where {@code trailers} is each trailer (sorted by name) as {@code name:value\n} — the
 * form aws-sdk-java-v2 signs.
 *
 * <p>Decoded data goes to the consumer as retained slices of the input (no copies) as soon as it arrives, so a
 * consumer sees data before the chunk's signature and the body's checksum are checked: it must treat everything as
 * provisional and discard it when {@link #feed} or {@link #finish} throws. The last piece of a chunk is only handed
 * on after that chunk's signature verified.
 */
public final class AwsChunkedDecoder {
  /** The longest chunk header or trailer line accepted, without its CRLF. */
  public static final int MAX_LINE = 4096;
  private static final String DECODED_LENGTH = "x-amz-decoded-content-length";
  private static final String TRAILER = "x-amz-trailer";
  private static final String TRAILER_SIGNATURE = "x-amz-trailer-signature";
  private static final String CHUNK_SIGNATURE = "chunk-signature=";

  private enum State { CHUNK_HEADER, CHUNK_DATA, DATA_CR, DATA_LF, TRAILER, DONE, FAILED }

  private final PayloadMode mode;
  private final ChunkSigner signer;
  private final long declaredLength;
  private final List<String> declaredTrailers;
  private final ChecksumAlgorithm checksumAlgorithm;
  private final ChecksumAlgorithm.Running checksum;
  private final MessageDigest chunkDigest;

  private State state = State.CHUNK_HEADER;
  private byte[] line = new byte[128];
  private int lineLength;
  private long chunkRemaining;
  private String chunkSignature;
  private String previousSignature;
  private long decoded;
  private byte[] bodyChecksum;
  private final Map<String, String> trailers = new TreeMap<>();
  private String trailerSignature;
  private VerifiedChecksum verified;

  /**
   * @param auth the verified request; its payload mode must be one of the streaming ones
   * @param trailerNames the names listed in {@code x-amz-trailer} (may be empty); only {@code x-amz-checksum-*}
   * @param decodedContentLength {@code x-amz-decoded-content-length}, the length of the decoded body
   * @throws S3AuthException when the declared trailers cannot be honoured
   */
  public AwsChunkedDecoder(Authentication auth, List<String> trailerNames, long decodedContentLength) {
    Objects.requireNonNull(auth, "auth");
    if (!auth.payloadMode().streaming()) {
      throw new IllegalArgumentException("not an aws-chunked payload mode: " + auth.payloadMode());
    }
    if (decodedContentLength < 0) {
      throw new IllegalArgumentException("the decoded content length is required, got " + decodedContentLength);
    }
    this.mode = auth.payloadMode();
    this.signer = auth.chunkSigner();
    this.previousSignature = auth.seedSignature();
    this.declaredLength = decodedContentLength;
    List<String> names = new ArrayList<>();
    for (String n : trailerNames) {
      String name = n.strip().toLowerCase(Locale.ROOT);
      if (!name.isEmpty() && !names.contains(name)) {
        names.add(name);
      }
    }
    if (!names.isEmpty() && !mode.trailers()) {
      throw S3AuthException.invalidRequest("x-amz-trailer needs x-amz-content-sha256 "
          + "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER or STREAMING-UNSIGNED-PAYLOAD-TRAILER");
    }
    ChecksumAlgorithm algorithm = null;
    for (String name : names) {
      ChecksumAlgorithm a = ChecksumAlgorithm.forHeader(name);
      if (a == null && name.startsWith(ChecksumAlgorithm.HEADER_PREFIX)) {
        throw S3AuthException.notImplemented("the checksum trailer " + name + " is not supported; use crc32, "
            + "crc32c, crc64nvme, sha1 or sha256");
      }
      if (a == null) {
        throw S3AuthException.invalidRequest("unsupported trailer " + name
            + "; only x-amz-checksum-* trailers are accepted");
      }
      if (algorithm != null) {
        throw S3AuthException.invalidRequest("only one checksum trailer is allowed, got " + names);
      }
      algorithm = a;
    }
    this.declaredTrailers = List.copyOf(names);
    this.checksumAlgorithm = algorithm;
    this.checksum = algorithm == null ? null : algorithm.start();
    this.chunkDigest = mode.signedChunks() ? Sha256.newDigest() : null;
  }

  /**
   * A decoder for a request's headers: {@code x-amz-decoded-content-length} (required) and {@code x-amz-trailer}.
   *
   * @throws S3AuthException 411 MissingContentLength without the length, 400 when a header is malformed
   */
  public static AwsChunkedDecoder forRequest(Authentication auth, HttpHeaders headers) {
    String length = headers.get(DECODED_LENGTH);
    if (length == null) {
      throw S3AuthException.missingDecodedLength();
    }
    if (!length.strip().matches("[0-9]{1,18}")) {
      throw S3AuthException.invalidArgument(DECODED_LENGTH + " must be a non-negative integer");
    }
    List<String> trailerNames = new ArrayList<>();
    for (String v : headers.getAll(TRAILER)) {
      trailerNames.addAll(List.of(v.split(",")));
    }
    return new AwsChunkedDecoder(auth, trailerNames, Long.parseLong(length.strip()));
  }

  /**
   * Consumes every readable byte of {@code in} (which stays the caller's to release) and hands decoded data, in
   * order, to {@code out} as retained slices of {@code in} that the consumer releases.
   *
   * @throws io.granary.common.error.ApiException when the body is malformed, over-long or fails a signature check;
   *     the decoder is unusable afterwards
   */
  public void feed(ByteBuf in, Consumer<ByteBuf> out) {
    if (state == State.FAILED) {
      throw new IllegalStateException("the aws-chunked decoder already failed");
    }
    try {
      while (in.isReadable()) {
        switch (state) {
          case CHUNK_HEADER -> {
            if (readLine(in, false)) {
              onChunkHeader(takeLine());
            }
          }
          case CHUNK_DATA -> readData(in, out);
          case DATA_CR -> expect(in, '\r', State.DATA_LF);
          case DATA_LF -> expect(in, '\n', State.CHUNK_HEADER);
          case TRAILER -> {
            if (readLine(in, true)) {
              onTrailerLine(takeLine());
            }
          }
          case DONE -> throw S3AuthException.incompleteBody("the body continues after the end of its aws-chunked "
              + "encoding");
          default -> throw new IllegalStateException("unexpected state " + state);
        }
      }
    } catch (RuntimeException e) {
      state = State.FAILED;
      throw e;
    }
  }

  /**
   * Called once the request body has ended.
   *
   * @throws IncompleteBodyException when the final chunk or the trailers did not arrive
   */
  public void finish() {
    if (state == State.DONE) {
      return;
    }
    if (state == State.FAILED) {
      throw new IllegalStateException("the aws-chunked decoder already failed");
    }
    state = State.FAILED;
    throw new IncompleteBodyException(decoded, decoded < declaredLength ? declaredLength : -1);
  }

  /** Whether the whole encoding, including trailers, arrived and verified. */
  public boolean complete() {
    return state == State.DONE;
  }

  /** Decoded bytes handed on so far. */
  public long decodedBytes() {
    return decoded;
  }

  /** The name of the checksum trailer the body declared ({@code x-amz-checksum-crc32}...), or null when none. */
  public String checksumTrailer() {
    return checksumAlgorithm == null ? null : declaredTrailers.get(0);
  }

  /** The checksum trailer that matched the body, once {@link #complete()}; empty when none was declared. */
  public Optional<VerifiedChecksum> checksum() {
    return Optional.ofNullable(verified);
  }

  // ---------------------------------------------------------------- framing

  /**
   * Appends bytes up to a '\n' to the line buffer; true once a whole line is there (its CRLF dropped). Only a
   * bounded line is ever copied: the scan for '\n' stops at the limit.
   */
  private boolean readLine(ByteBuf in, boolean trailer) {
    int room = MAX_LINE + 1 - lineLength; // + 1 for the '\r'
    int scan = Math.min(in.readableBytes(), room + 1);
    int lf = in.bytesBefore(in.readerIndex(), scan, (byte) '\n');
    int take = lf < 0 ? scan : lf;
    if (take > room) { // only possible without a '\n': room + 1 bytes scanned and none was one
      throw malformedLine(trailer, (trailer ? "a trailer line" : "a chunk header") + " is longer than "
          + MAX_LINE + " bytes");
    }
    if (lineLength + take > line.length) {
      line = Arrays.copyOf(line, Math.min(MAX_LINE + 1, Math.max(line.length * 2, lineLength + take)));
    }
    in.readBytes(line, lineLength, take);
    lineLength += take;
    if (lf < 0) {
      return false;
    }
    in.skipBytes(1);
    if (lineLength == 0 || line[lineLength - 1] != '\r') {
      throw malformedLine(trailer, (trailer ? "a trailer line" : "a chunk header") + " does not end with CRLF");
    }
    lineLength--;
    return true;
  }

  private String takeLine() {
    String s = new String(line, 0, lineLength, StandardCharsets.ISO_8859_1);
    lineLength = 0;
    return s;
  }

  private static S3AuthException malformedLine(boolean trailer, String message) {
    return trailer ? S3AuthException.badTrailer(message) : S3AuthException.badChunk(message);
  }

  private void onChunkHeader(String header) {
    int semi = header.indexOf(';');
    String hex = semi < 0 ? header : header.substring(0, semi);
    if (hex.isEmpty() || hex.length() > 15 || !hex.chars().allMatch(Sha256::isHexDigit)) {
      throw S3AuthException.badChunk("a chunk size must be 1 to 15 hex digits");
    }
    long size = Long.parseLong(hex, 16);
    String extension = semi < 0 ? null : header.substring(semi + 1);
    if (mode.signedChunks()) {
      if (extension == null || !extension.startsWith(CHUNK_SIGNATURE)
          || !Sha256.isHex64(extension.substring(CHUNK_SIGNATURE.length()))) {
        throw S3AuthException.badChunk("every chunk of a " + mode.headerValue()
            + " body needs ;chunk-signature=<64 hex digits>");
      }
      chunkSignature = extension.substring(CHUNK_SIGNATURE.length()).toLowerCase(Locale.ROOT);
    } else if (extension != null) {
      throw S3AuthException.badChunk("the chunks of a " + mode.headerValue() + " body carry no extensions");
    }
    if (size > declaredLength - decoded) {
      throw S3AuthException.incompleteBody("the chunks carry more than the " + declaredLength
          + " bytes of x-amz-decoded-content-length");
    }
    if (size > 0) {
      chunkRemaining = size;
      state = State.CHUNK_DATA;
      return;
    }
    // The zero-size chunk ends the data; it is signed like any other.
    if (decoded != declaredLength) {
      throw new IncompleteBodyException(decoded, declaredLength);
    }
    if (mode.signedChunks()) {
      verifyChunk(chunkDigest.digest());
    }
    bodyChecksum = checksum == null ? null : checksum.finish();
    state = State.TRAILER;
  }

  private void readData(ByteBuf in, Consumer<ByteBuf> out) {
    int n = (int) Math.min(chunkRemaining, in.readableBytes());
    int index = in.readerIndex();
    if (chunkDigest != null || checksum != null) {
      for (ByteBuffer b : in.nioBuffers(index, n)) {
        if (chunkDigest != null) {
          chunkDigest.update(b.duplicate());
        }
        if (checksum != null) {
          checksum.update(b);
        }
      }
    }
    chunkRemaining -= n;
    decoded += n;
    if (chunkRemaining == 0) {
      if (mode.signedChunks()) {
        verifyChunk(chunkDigest.digest());
      }
      state = State.DATA_CR;
    }
    ByteBuf slice = in.retainedSlice(index, n);
    in.skipBytes(n);
    out.accept(slice);
  }

  private void expect(ByteBuf in, char c, State next) {
    if (in.readByte() != c) {
      throw S3AuthException.badChunk("chunk data must be followed by CRLF");
    }
    state = next;
  }

  private void verifyChunk(byte[] dataSha256) {
    String expected = signer.chunkSignature(previousSignature, dataSha256);
    if (!ChunkSigner.sameSignature(expected, chunkSignature)) {
      throw S3AuthException.signatureMismatch("chunk");
    }
    previousSignature = expected;
  }

  // ---------------------------------------------------------------- trailers

  private void onTrailerLine(String l) {
    if (l.isEmpty()) {
      endTrailers();
      state = State.DONE;
      return;
    }
    if (!mode.trailers()) {
      throw S3AuthException.badTrailer("a " + mode.headerValue() + " body has no trailers");
    }
    int colon = l.indexOf(':');
    if (colon <= 0) {
      throw S3AuthException.badTrailer("a trailer line must be name:value");
    }
    String name = l.substring(0, colon).strip().toLowerCase(Locale.ROOT);
    String value = l.substring(colon + 1).strip();
    if (name.equals(TRAILER_SIGNATURE)) {
      if (mode != PayloadMode.STREAMING_SIGNED_TRAILER) {
        throw S3AuthException.badTrailer("x-amz-trailer-signature in a body whose trailers are not signed");
      }
      if (trailerSignature != null) {
        throw S3AuthException.badTrailer("x-amz-trailer-signature is given twice");
      }
      if (!Sha256.isHex64(value)) {
        throw S3AuthException.badTrailer("x-amz-trailer-signature must be 64 hex digits");
      }
      trailerSignature = value.toLowerCase(Locale.ROOT);
      return;
    }
    if (trailerSignature != null) {
      throw S3AuthException.badTrailer("trailer " + name + " follows x-amz-trailer-signature");
    }
    if (!declaredTrailers.contains(name)) {
      throw S3AuthException.badTrailer("trailer " + name + " was not declared in x-amz-trailer");
    }
    if (trailers.putIfAbsent(name, value) != null) {
      throw S3AuthException.badTrailer("trailer " + name + " is given twice");
    }
  }

  private void endTrailers() {
    for (String name : declaredTrailers) {
      if (!trailers.containsKey(name)) {
        throw S3AuthException.badTrailer("the trailer " + name + " declared in x-amz-trailer is missing");
      }
    }
    if (mode == PayloadMode.STREAMING_SIGNED_TRAILER && (trailerSignature != null || !trailers.isEmpty())) {
      if (trailerSignature == null) {
        throw S3AuthException.badTrailer("the trailers of a " + mode.headerValue()
            + " body need x-amz-trailer-signature");
      }
      StringBuilder block = new StringBuilder();
      trailers.forEach((name, value) -> block.append(name).append(':').append(value).append('\n'));
      byte[] blockSha256 = Sha256.newDigest().digest(block.toString().getBytes(StandardCharsets.ISO_8859_1));
      String expected = signer.trailerSignature(previousSignature, blockSha256);
      if (!ChunkSigner.sameSignature(expected, trailerSignature)) {
        throw S3AuthException.signatureMismatch("trailer");
      }
      previousSignature = expected;
    }
    if (checksumAlgorithm != null) {
      String sent = trailers.get(checksumAlgorithm.header());
      byte[] claimed;
      try {
        claimed = Base64.getDecoder().decode(sent);
      } catch (IllegalArgumentException e) {
        throw S3AuthException.invalidRequest("Value for " + checksumAlgorithm.header()
            + " trailing header is invalid: not base64");
      }
      String actual = Base64.getEncoder().encodeToString(bodyChecksum);
      if (!MessageDigest.isEqual(claimed, bodyChecksum)) {
        throw new ChecksumMismatchException(checksumAlgorithm.name(), sent, actual);
      }
      verified = new VerifiedChecksum(checksumAlgorithm, actual);
    }
  }
}
