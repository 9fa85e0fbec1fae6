package io.granary.common.s3.auth;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import software.amazon.awssdk.checksums.spi.ChecksumAlgorithm;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.utils.http.SdkHttpUtils;

/**
 * Signs requests with aws-sdk-java-v2's own {@link AwsV4HttpSigner}, configured as its S3 client configures it (no
 * double URL-encoding, no path normalization), and turns the result into a {@link SignedRequest} as the proxy would
 * receive it. An independent implementation to check the verifier and the decoder against.
 */
final class SdkSigning {
  static final String ACCESS_KEY = "AKIDSDKEXAMPLE+/=_.-";
  static final String SECRET_KEY = "sdk/secret+key=with/odd+chars";
  static final String REGION = "granary-local-1";
  static final Instant TIME = Instant.parse("2024-06-01T12:00:00Z");
  static final Clock CLOCK = Clock.fixed(TIME, ZoneOffset.UTC);
  static final String HOST = "granary.example:8443";

  static final AwsCredentialsIdentity IDENTITY = AwsCredentialsIdentity.create(ACCESS_KEY, SECRET_KEY);
  private static final AwsV4HttpSigner SIGNER = AwsV4HttpSigner.create();

  /** The SDK's signed request and the body it would send (null without one). */
  record Signed(SignedRequest request, byte[] body) {
  }

  private SdkSigning() {
  }

  static CredentialStore store() {
    return CredentialStore.of(List.of(new Credentials(ACCESS_KEY, SECRET_KEY)));
  }

  static SigV4Verifier verifier() {
    return new SigV4Verifier(store(), CLOCK);
  }

  /** A request for {@code /bucket/KEY} with the key encoded as the S3 client encodes it. */
  static SdkHttpRequest.Builder request(SdkHttpMethod method, String bucket, String key) {
    return SdkHttpRequest.builder()
        .method(method)
        .protocol("https")
        .host("granary.example")
        .port(8443)
        .encodedPath("/" + bucket + "/" + SdkHttpUtils.urlEncodeIgnoreSlashes(key));
  }

  /** Header auth; "x-amz-content-sha256: required" makes the signer fill in the payload hash, as the S3 client does. */
  static Signed headerSigned(SdkHttpRequest.Builder request, byte[] body, boolean payloadSigning) {
    request.putHeader("x-amz-content-sha256", "required");
    if (body != null) {
      request.putHeader("Content-Length", Integer.toString(body.length));
    }
    return sign(request.build(), body, IDENTITY, b -> b.putProperty(AwsV4FamilyHttpSigner.PAYLOAD_SIGNING_ENABLED,
        payloadSigning));
  }

  /** A presigned URL valid for {@code expires}. */
  static Signed presigned(SdkHttpRequest.Builder request, Duration expires) {
    return presigned(request, expires, IDENTITY);
  }

  /** A presigned URL signed with {@code identity} (session credentials add X-Amz-Security-Token). */
  static Signed presigned(SdkHttpRequest.Builder request, Duration expires, AwsCredentialsIdentity identity) {
    return presigned(request, expires, identity, CLOCK);
  }

  /** A presigned URL signed with {@code identity} at the time of {@code signingClock}. */
  static Signed presigned(SdkHttpRequest.Builder request, Duration expires, AwsCredentialsIdentity identity,
                          Clock signingClock) {
    return sign(request.build(), null, identity, b -> b
        .putProperty(HttpSigner.SIGNING_CLOCK, signingClock)
        .putProperty(AwsV4FamilyHttpSigner.AUTH_LOCATION, AwsV4FamilyHttpSigner.AuthLocation.QUERY_STRING)
        .putProperty(AwsV4FamilyHttpSigner.EXPIRATION_DURATION, expires)
        .putProperty(AwsV4FamilyHttpSigner.PAYLOAD_SIGNING_ENABLED, false));
  }

  /**
   * An aws-chunked upload as the SDK encodes it: signed chunks when {@code payloadSigning}, and a checksum trailer
   * of {@code checksum} when it is not null. The SDK uses 128 KiB chunks.
   */
  static Signed chunked(SdkHttpRequest.Builder request, byte[] body, boolean payloadSigning,
                        ChecksumAlgorithm checksum) {
    request.putHeader("x-amz-content-sha256", "required");
    request.putHeader("Content-Length", Integer.toString(body.length));
    return sign(request.build(), body, IDENTITY, b -> {
      b.putProperty(AwsV4FamilyHttpSigner.CHUNK_ENCODING_ENABLED, true)
          .putProperty(AwsV4FamilyHttpSigner.PAYLOAD_SIGNING_ENABLED, payloadSigning);
      if (checksum != null) {
        b.putProperty(AwsV4FamilyHttpSigner.CHECKSUM_ALGORITHM, checksum);
      }
    });
  }

  private static Signed sign(SdkHttpRequest request, byte[] body, AwsCredentialsIdentity identity,
                             Consumer<SignRequest.Builder<AwsCredentialsIdentity>> extra) {
    software.amazon.awssdk.http.auth.spi.signer.SignedRequest signed = SIGNER.sign(b -> {
      b.identity(identity)
          .request(request)
          .putProperty(AwsV4HttpSigner.REGION_NAME, REGION)
          .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
          .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, false)
          .putProperty(AwsV4HttpSigner.NORMALIZE_PATH, false)
          .putProperty(HttpSigner.SIGNING_CLOCK, CLOCK);
      if (body != null) {
        b.payload(ContentStreamProvider.fromByteArray(body));
      }
      extra.accept(b);
    });
    return new Signed(toReceived(signed.request()), signed.payload().map(SdkSigning::readAll).orElse(null));
  }

  /** The request as it arrives at the proxy: encoded path and query, and the headers (with Host). */
  static SignedRequest toReceived(SdkHttpRequest r) {
    HttpHeaders headers = new DefaultHttpHeaders();
    for (Map.Entry<String, List<String>> e : r.headers().entrySet()) {
      for (String v : e.getValue()) {
        headers.add(e.getKey(), v);
      }
    }
    if (!headers.contains("Host")) {
      headers.set("Host", HOST);
    }
    String query = SdkHttpUtils.encodeAndFlattenQueryParameters(r.rawQueryParameters()).orElse("");
    return new SignedRequest(r.method().name(), r.encodedPath(), query, headers);
  }

  private static byte[] readAll(ContentStreamProvider p) {
    try (InputStream in = p.newStream()) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
