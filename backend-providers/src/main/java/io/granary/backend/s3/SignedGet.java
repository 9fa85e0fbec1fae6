package io.granary.backend.s3;

import io.granary.backend.BackendException;
import io.granary.backend.BackendException.Kind;
import io.granary.backend.PlainHttpGet;
import io.granary.backend.PlainHttpReads;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
  private static final Pattern ERROR_CODE = Pattern.compile("<Code>([^<]{1,128})</Code>");

  private final SdkHttpClient http;
  private final AwsCredentialsProvider credentials; // null: anonymous, requests go unsigned
  private final String region;
  private final S3ObjectUrls urls;
  private final int maxAttempts;
  private final Duration readTimeout;
  /** Whether resolving credentials is known not to block: read from a file already, or resolved once and cached. */
  private volatile boolean credentialsResolved;
  private final BackoffStrategy backoff =
      BackoffStrategy.exponentialDelay(Duration.ofMillis(100), Duration.ofSeconds(20));

  /** A 2xx answer: its head, and its body for the caller to read and then close (or abort). */
  record Answer(SdkHttpResponse head, AbortableInputStream body) {}

  SignedGet(SdkHttpClient http, AwsCredentialsProvider credentials, String region, S3ObjectUrls urls,
      int maxAttempts, Duration readTimeout, boolean credentialsInMemory) {
    this.credentialsResolved = credentialsInMemory;
    this.http = http;
    this.credentials = credentials;
    this.region = region;
    this.urls = urls;
    this.maxAttempts = maxAttempts;
    this.readTimeout = readTimeout;
  }

  /**
   * The signed GET for a caller's own HTTP client, or null when the endpoint is not plain HTTP, or when resolving
   * the credentials may still block (the default chain before its first use: instance metadata, files).
   */
  PlainHttpGet plain(String bucket, String key, long offset, long length, String range) {
    URI uri = urls.object(bucket, key);
    if (!"http".equalsIgnoreCase(uri.getScheme()) || (credentials != null && !credentialsResolved)) {
      return null;
    }
    SdkHttpRequest request = signed(uri, range, null);
    List<Map.Entry<String, String>> headers = new ArrayList<>();
    if (request.firstMatchingHeader("Host").isEmpty()) {
      headers.add(Map.entry("Host", uri.getPort() > 0 ? uri.getHost() + ":" + uri.getPort() : uri.getHost()));
    }
    request.forEachHeader((name, values) -> values.forEach(v -> headers.add(Map.entry(name, v))));
    String target = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
    return new PlainHttpGet(bucket, key, offset, length, uri.getHost(), uri.getPort() > 0 ? uri.getPort() : 80,
        target, headers, readTimeout, what(bucket, key));
  }

  static String what(String bucket, String key) {
    return "GET s3://" + bucket + "/" + key;
  }

  /**
   * GETs {@code key}, with {@code range} and {@code ifMatch} headers when not null.
   *
   * @throws BackendException for a non-2xx answer (kind from its status and S3 error code) or when the remote
   *     stayed unreachable through every attempt
   */
  Answer send(String bucket, String key, String range, String ifMatch) throws BackendException {
    String what = what(bucket, key);
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
    var identity = credentials.resolveCredentials();
    credentialsResolved = true;
    // S3's SigV4 flavour: the path encoded once and not normalized (keys may hold "//" or "./").
    return SIGNER.sign(s -> s.identity(identity).request(request)
        .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
        .putProperty(AwsV4HttpSigner.REGION_NAME, region)
        .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, false)
        .putProperty(AwsV4HttpSigner.NORMALIZE_PATH, false)
        .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, false)).request();
  }

  /** The failure a non-2xx answer means; reads at most a few KiB of its body for the S3 error code. */
  private static BackendException error(String what, SdkHttpResponse head, AbortableInputStream body) {
    String start = "";
    try (InputStream in = body) {
      start = new String(in.readNBytes(PlainHttpReads.ERROR_BODY_MAX), StandardCharsets.UTF_8);
      if (in.read() >= 0) {
        body.abort(); // more than an error body: not worth draining
      }
    } catch (IOException | RuntimeException e) {
      body.abort(); // the status says enough
    }
    return failure(what, head.statusCode(), start);
  }

  /** The failure a non-2xx answer means, from its status and the S3 error code in the start of its body. */
  static BackendException failure(String what, int status, String bodyStart) {
    Matcher m = ERROR_CODE.matcher(bodyStart);
    String code = m.find() ? m.group(1) : null;
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
