package io.granary.backend.s3;

import io.granary.backend.BackendException;
import io.granary.backend.BackendException.Kind;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.retries.api.BackoffStrategy;

/**
 * Object GETs sent on the SDK's HTTP client (the pool {@code S3Client} uses), signed by the SDK's SigV4 signer,
 * without the SDK's per-request pipeline: endpoint rules, interceptors and response unmarshalling cost more than a
 * nearby store takes to answer (measured against S3Proxy with idle gaps between GETs, as on a cold path: 2.2 ms a
 * GET through {@code S3Client}, 1.1 ms this way, 0.4 ms of it S3Proxy's own). Cold reads pay that per object and
 * per ranged piece, in front of their first byte. Transient failures before the answer's head (5xx, 429, I/O errors,
 * timeouts) are retried with the SDK's jittered exponential backoff, as {@code S3Client} retries them.
 */
final class SignedGet {
  private static final AwsV4HttpSigner SIGNER = AwsV4HttpSigner.create();
  /** An S3 error body is a few hundred bytes of XML; more is not worth reading for its code. */
  private static final int ERROR_BODY_MAX = 8192;
  private static final Pattern ERROR_CODE = Pattern.compile("<Code>([^<]{1,128})</Code>");

  private final SdkHttpClient http;
  private final AwsCredentialsProvider credentials; // null: anonymous, requests go unsigned
  private final String region;
  private final S3ObjectUrls urls;
  private final int maxAttempts;
  private final BackoffStrategy backoff =
      BackoffStrategy.exponentialDelay(Duration.ofMillis(100), Duration.ofSeconds(20));

  /** A 2xx answer: its head, and its body for the caller to read and then close (or abort). */
  record Answer(SdkHttpResponse head, AbortableInputStream body) {}

  SignedGet(SdkHttpClient http, AwsCredentialsProvider credentials, String region, S3ObjectUrls urls,
      int maxAttempts) {
    this.http = http;
    this.credentials = credentials;
    this.region = region;
    this.urls = urls;
    this.maxAttempts = maxAttempts;
  }

  /**
   * GETs {@code key}, with {@code range} and {@code ifMatch} headers when not null.
   *
   * @throws BackendException for a non-2xx answer (kind from its status and S3 error code) or when the remote
   *     stayed unreachable through every attempt
   */
  Answer send(String bucket, String key, String range, String ifMatch) throws BackendException {
    String what = "GET s3://" + bucket + "/" + key;
    URI uri = urls.object(bucket, key);
    for (int attempt = 1; ; attempt++) {
      BackendException failure;
      try {
        HttpExecuteResponse r = http.prepareRequest(HttpExecuteRequest.builder()
            .request(signed(uri, range, ifMatch)).build()).call();
        AbortableInputStream body = r.responseBody().orElseGet(AbortableInputStream::createEmpty);
        if (r.httpResponse().isSuccessful()) {
          return new Answer(r.httpResponse(), body);
        }
        failure = error(what, r.httpResponse(), body);
      } catch (IOException e) {
        failure = new BackendException(Kind.UNAVAILABLE, 0, what + ": " + S3Errors.describe(e), e);
      } catch (SdkException e) { // no credentials to sign with: reported as S3Client reports it for HEAD and LIST
        throw S3Errors.map("GET", bucket, key, e);
      }
      if (failure.kind() != Kind.UNAVAILABLE || attempt >= maxAttempts) {
        throw failure;
      }
      pause(backoff.computeDelay(attempt), what);
    }
  }

  private SdkHttpRequest signed(URI uri, String range, String ifMatch) {
    SdkHttpRequest.Builder b = SdkHttpRequest.builder().method(SdkHttpMethod.GET).uri(uri);
    if (range != null) {
      b.putHeader("Range", range);
    }
    if (ifMatch != null) {
      b.putHeader("If-Match", ifMatch);
    }
    SdkHttpRequest request = b.build();
    if (credentials == null) {
      return request;
    }
    // S3's SigV4 flavour: the path encoded once and not normalized (keys may hold "//" or "./").
    return SIGNER.sign(s -> s.identity(credentials.resolveCredentials()).request(request)
        .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
        .putProperty(AwsV4HttpSigner.REGION_NAME, region)
        .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, false)
        .putProperty(AwsV4HttpSigner.NORMALIZE_PATH, false)
        .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, false)).request();
  }

  /** The failure a non-2xx answer means; reads at most a few KiB of its body for the S3 error code. */
  private static BackendException error(String what, SdkHttpResponse head, AbortableInputStream body) {
    String code = null;
    try (InputStream in = body) {
      byte[] xml = in.readNBytes(ERROR_BODY_MAX);
      Matcher m = ERROR_CODE.matcher(new String(xml, StandardCharsets.UTF_8));
      code = m.find() ? m.group(1) : null;
      if (in.read() >= 0) {
        body.abort(); // more than an error body: not worth draining
      }
    } catch (IOException | RuntimeException e) {
      body.abort(); // the status says enough
    }
    int status = head.statusCode();
    boolean throttled = status == 429 || "SlowDown".equals(code) || "Throttling".equals(code);
    return new BackendException(S3Errors.kindOf(status, code, throttled), status,
        what + ": " + status + (code == null ? "" : " " + code));
  }

  private static void pause(Duration d, String what) throws BackendException {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BackendException(Kind.OTHER, 0, what + ": interrupted while backing off", e);
    }
  }
}
