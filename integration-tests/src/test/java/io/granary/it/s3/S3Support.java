package io.granary.it.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.granary.it.support.Http;
import io.granary.it.support.TestCluster;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * S3 clients for a {@link TestCluster}, as users configure them for an S3-compatible endpoint: path-style, region
 * us-east-1, the endpoint overridden, static keys, and the SDK's DEFAULT checksum behaviour (the sync client PUTs
 * aws-chunked with a signed CRC32 trailer, the async one STREAMING-UNSIGNED-PAYLOAD-TRAILER). Retries are off so an
 * error the cluster answers is the error the test sees.
 */
public final class S3Support {
  static final Region REGION = Region.US_EAST_1;

  /** The headers of every request the SDK clients built here sent, by operation name (the last one wins). */
  static final Map<String, Map<String, List<String>>> SENT = new java.util.concurrent.ConcurrentHashMap<>();

  private static final ExecutionInterceptor RECORDER = new ExecutionInterceptor() {
    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
      SENT.put(attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME), context.httpRequest().headers());
    }
  };

  private S3Support() {}

  /** A header of the last request of {@code operation} (e.g. "PutObject") a client from here sent. */
  static String sentHeader(String operation, String header) {
    Map<String, List<String>> h = SENT.getOrDefault(operation, Map.of());
    return h.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(header))
        .flatMap(e -> e.getValue().stream()).findFirst().orElse(null);
  }

  static StaticCredentialsProvider credentials(String accessKey, String secretKey) {
    return StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey));
  }

  public static StaticCredentialsProvider credentials(TestCluster cluster) {
    return credentials(cluster.credentials().accessKey(), cluster.credentials().secretKey());
  }

  public static S3Client sync(TestCluster cluster) {
    return sync(cluster.endpoint(), credentials(cluster));
  }

  static S3Client sync(String endpoint, StaticCredentialsProvider credentials) {
    return S3Client.builder()
        .endpointOverride(URI.create(endpoint))
        .region(REGION)
        .forcePathStyle(true)
        .credentialsProvider(credentials)
        .httpClientBuilder(ApacheHttpClient.builder().socketTimeout(Duration.ofSeconds(120))
            .connectionTimeout(Duration.ofSeconds(5)))
        .overrideConfiguration(o -> o.retryStrategy(b -> b.maxAttempts(1)).addExecutionInterceptor(RECORDER))
        .build();
  }

  static S3AsyncClient async(TestCluster cluster) {
    return asyncBuilder(cluster).build();
  }

  /** The async client with the SDK's own multipart upload: objects over {@code partSize} go up in parts. */
  static S3AsyncClient asyncMultipart(TestCluster cluster, long partSize) {
    return asyncBuilder(cluster).multipartEnabled(true)
        .multipartConfiguration(m -> m.thresholdInBytes(partSize).minimumPartSizeInBytes(partSize))
        .build();
  }

  private static software.amazon.awssdk.services.s3.S3AsyncClientBuilder asyncBuilder(TestCluster cluster) {
    return S3AsyncClient.builder()
        .endpointOverride(URI.create(cluster.endpoint()))
        .region(REGION)
        .forcePathStyle(true)
        .credentialsProvider(credentials(cluster))
        .httpClientBuilder(NettyNioAsyncHttpClient.builder().readTimeout(Duration.ofSeconds(120))
            .connectionTimeout(Duration.ofSeconds(5)))
        .overrideConfiguration(o -> o.retryStrategy(b -> b.maxAttempts(1)).addExecutionInterceptor(RECORDER));
  }

  static S3Presigner presigner(TestCluster cluster) {
    return S3Presigner.builder()
        .endpointOverride(URI.create(cluster.endpoint()))
        .region(REGION)
        .credentialsProvider(credentials(cluster))
        .serviceConfiguration(software.amazon.awssdk.services.s3.S3Configuration.builder().pathStyleAccessEnabled(true).build())
        .build();
  }

  /** The S3 error {@code call} fails with; fails the test when it succeeds or fails otherwise. */
  static S3Exception s3Error(ThrowingCallable call) {
    Throwable t = catchThrowable(call);
    while (t instanceof java.util.concurrent.CompletionException || t instanceof java.util.concurrent.ExecutionException) {
      t = t.getCause();
    }
    assertThat(t).as("the request should have failed with an S3 error").isInstanceOf(S3Exception.class);
    return (S3Exception) t;
  }

  /** Asserts {@code call} fails with HTTP {@code status} and S3 error code {@code code}. */
  static S3Exception assertS3Error(ThrowingCallable call, int status, String code) {
    S3Exception e = s3Error(call);
    assertThat(e.statusCode()).as(String.valueOf(e.awsErrorDetails())).isEqualTo(status);
    if (code != null) {
      assertThat(e.awsErrorDetails().errorCode()).as(e.getMessage()).isEqualTo(code);
    }
    return e;
  }

  /** Whether {@code t} is an SDK failure (for calls that may fail without an S3 error document, e.g. HEAD). */
  static boolean isSdkFailure(Throwable t) {
    return t instanceof SdkException;
  }

  static String md5Hex(byte[] data) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(data));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static String md5Base64(byte[] data) {
    try {
      return java.util.Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(data));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** SHA-256 hex of everything {@code in} yields; closes it. */
  static String sha256(InputStream in) throws java.io.IOException {
    MessageDigest md = Http.sha256();
    try (in) {
      byte[] buf = new byte[1 << 20];
      for (int n; (n = in.read(buf)) > 0; ) {
        md.update(buf, 0, n);
      }
    }
    return HexFormat.of().formatHex(md.digest());
  }

  static String unquote(String etag) {
    return etag != null && etag.length() >= 2 && etag.startsWith("\"") && etag.endsWith("\"")
        ? etag.substring(1, etag.length() - 1) : etag;
  }

  /**
   * A request SigV4-signed by the SDK's own signer, the way SDKs sign S3 requests over plain HTTP: payload signing
   * on, so {@code x-amz-content-sha256} is the hex SHA-256 of {@code signedBody}; no double URL encoding.
   *
   * @param pathAndQuery the raw (already percent-encoded) path and query, e.g. {@code /bucket/key?uploadId=x}
   * @param headers extra headers to sign (e.g. Content-MD5, Content-Type)
   * @return a JDK request builder carrying the signature, without a body (see {@link #sendSigned})
   */
  static HttpRequest.Builder signed(TestCluster cluster, String accessKey, String secretKey, String method,
      String pathAndQuery, Map<String, String> headers, byte[] signedBody) {
    return signed(cluster, accessKey, secretKey, method, pathAndQuery, headers, signedBody, java.time.Clock.systemUTC());
  }

  /** As above, signed at the time {@code clock} tells. */
  static HttpRequest.Builder signed(TestCluster cluster, String accessKey, String secretKey, String method,
      String pathAndQuery, Map<String, String> headers, byte[] signedBody, java.time.Clock clock) {
    URI uri = URI.create(cluster.endpoint() + pathAndQuery);
    SdkHttpRequest.Builder b = SdkHttpRequest.builder().method(SdkHttpMethod.fromValue(method)).uri(uri);
    headers.forEach(b::putHeader);
    byte[] body = signedBody == null ? new byte[0] : signedBody;
    SignedRequest signedRequest = AwsV4HttpSigner.create().sign(r -> r
        .identity(AwsCredentialsIdentity.create(accessKey, secretKey))
        .request(b.build())
        .payload(ContentStreamProvider.fromByteArray(body))
        .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
        .putProperty(AwsV4HttpSigner.REGION_NAME, REGION.id())
        .putProperty(AwsV4FamilyHttpSigner.PAYLOAD_SIGNING_ENABLED, true)
        .putProperty(AwsV4FamilyHttpSigner.DOUBLE_URL_ENCODE, false)
        .putProperty(AwsV4FamilyHttpSigner.NORMALIZE_PATH, false)
        .putProperty(software.amazon.awssdk.http.auth.spi.signer.HttpSigner.SIGNING_CLOCK, clock));
    HttpRequest.Builder out = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60));
    signedRequest.request().headers().forEach((name, values) -> {
      if (!List.of("host", "content-length", "connection", "expect").contains(name.toLowerCase(java.util.Locale.ROOT))) {
        values.forEach(v -> out.header(name, v));
      }
    });
    return out;
  }

  /** Signs with the cluster's keys and sends {@code body} (the body that was signed, or another). */
  static Http.Reply sendSigned(TestCluster cluster, String method, String pathAndQuery, Map<String, String> headers,
      byte[] signedBody, byte[] sentBody) throws Exception {
    HttpRequest.Builder b = signed(cluster, cluster.credentials().accessKey(), cluster.credentials().secretKey(),
        method, pathAndQuery, headers, signedBody);
    HttpRequest.BodyPublisher p = sentBody == null ? HttpRequest.BodyPublishers.noBody()
        : HttpRequest.BodyPublishers.ofByteArray(sentBody);
    return Http.send(Http.NO_FOLLOW, b.method(method, p));
  }

  /** A signed request and the exact body bytes it was signed with. */
  record Prepared(HttpRequest.Builder request, byte[] body, String contentSha256) {
  }

  /**
   * An aws-chunked PUT of {@code data} signed by the SDK's own signer, as SDKs stream uploads: with
   * {@code signedChunks} every chunk carries a signature (STREAMING-AWS4-HMAC-SHA256-PAYLOAD[-TRAILER]), else the
   * chunks are unsigned (STREAMING-UNSIGNED-PAYLOAD-TRAILER); with {@code crc32Trailer} an x-amz-checksum-crc32
   * trailer ends the body.
   */
  static Prepared signedChunkedPut(TestCluster cluster, String pathAndQuery, byte[] data, boolean signedChunks,
      boolean crc32Trailer) throws java.io.IOException {
    URI uri = URI.create(cluster.endpoint() + pathAndQuery);
    // Over plain HTTP the SDK's signer always signs chunks; it leaves them unsigned only for HTTPS. The scheme is
    // not part of what is signed, so a request signed for https://host:port is valid at http://host:port.
    URI signedUri = signedChunks ? uri : URI.create(uri.toString().replaceFirst("^http:", "https:"));
    SdkHttpRequest req = SdkHttpRequest.builder().method(SdkHttpMethod.PUT).uri(signedUri)
        .putHeader("Content-Length", String.valueOf(data.length)).build();
    SignedRequest signedRequest = AwsV4HttpSigner.create().sign(r -> {
      r.identity(AwsCredentialsIdentity.create(cluster.credentials().accessKey(), cluster.credentials().secretKey()))
          .request(req)
          .payload(ContentStreamProvider.fromByteArray(data))
          .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
          .putProperty(AwsV4HttpSigner.REGION_NAME, REGION.id())
          .putProperty(AwsV4FamilyHttpSigner.CHUNK_ENCODING_ENABLED, true)
          .putProperty(AwsV4FamilyHttpSigner.PAYLOAD_SIGNING_ENABLED, signedChunks)
          .putProperty(AwsV4FamilyHttpSigner.DOUBLE_URL_ENCODE, false)
          .putProperty(AwsV4FamilyHttpSigner.NORMALIZE_PATH, false);
      if (crc32Trailer) {
        r.putProperty(AwsV4FamilyHttpSigner.CHECKSUM_ALGORITHM, software.amazon.awssdk.checksums.DefaultChecksumAlgorithm.CRC32);
      }
    });
    byte[] body;
    try (InputStream in = signedRequest.payload().orElseThrow().newStream()) {
      body = in.readAllBytes();
    }
    HttpRequest.Builder out = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60));
    signedRequest.request().headers().forEach((name, values) -> {
      if (!List.of("host", "content-length", "connection", "expect").contains(name.toLowerCase(java.util.Locale.ROOT))) {
        values.forEach(v -> out.header(name, v));
      }
    });
    String signedLength = signedRequest.request().firstMatchingHeader("Content-Length").orElse(null);
    assertThat(signedLength).as("the signed Content-Length is the encoded body's").isEqualTo(String.valueOf(body.length));
    return new Prepared(out, body,
        signedRequest.request().firstMatchingHeader("x-amz-content-sha256").orElse(null));
  }

  /** A reply's body for a failure message: the text of an XML (error) body, else only its length. */
  static String brief(Http.Reply r) {
    boolean xml = r.header("content-type").orElse("").contains("xml");
    return xml && r.body().length < 8192 ? r.bodyText() : "<" + r.body().length + " bytes>";
  }

  /** The text of {@code <tag>} in an XML document, or null. */
  static String xmlText(String xml, String tag) {
    int start = xml.indexOf("<" + tag + ">");
    if (start < 0) {
      return null;
    }
    int end = xml.indexOf("</" + tag + ">", start);
    return xml.substring(start + tag.length() + 2, end);
  }
}
