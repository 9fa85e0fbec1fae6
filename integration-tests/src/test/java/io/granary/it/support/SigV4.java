package io.granary.it.support;

import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

/**
 * Signs raw requests with the AWS SDK's own SigV4 signer, for requests the SDK's clients cannot make (native API
 * calls, malformed bodies): the headers it adds are copied onto a JDK HttpClient request.
 */
public final class SigV4 {
  private static final AwsV4HttpSigner SIGNER = AwsV4HttpSigner.create();

  private SigV4() {}

  /** {@code b} signed for {@code method} on {@code url} with {@code body} (its SHA-256 is signed; may be empty). */
  public static HttpRequest.Builder sign(HttpRequest.Builder b, String method, String url, byte[] body, String accessKey,
      String secretKey) {
    return sign(b, method, url, body, Map.of(), accessKey, secretKey);
  }

  /** As above, with {@code headers} (e.g. x-amz-copy-source) signed and set on {@code b}. */
  public static HttpRequest.Builder sign(HttpRequest.Builder b, String method, String url, byte[] body,
      Map<String, String> headers, String accessKey, String secretKey) {
    URI u = URI.create(url);
    SdkHttpRequest.Builder req = SdkHttpRequest.builder().method(SdkHttpMethod.fromValue(method)).protocol(u.getScheme())
        .host(u.getHost()).port(u.getPort()).encodedPath(u.getRawPath())
        .putHeader("x-amz-content-sha256", "required");
    headers.forEach(req::putHeader);
    if (u.getRawQuery() != null) {
      for (String kv : u.getRawQuery().split("&")) {
        int eq = kv.indexOf('=');
        req.appendRawQueryParameter(URLDecoder.decode(eq < 0 ? kv : kv.substring(0, eq), StandardCharsets.UTF_8),
            eq < 0 ? "" : URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    var signed = SIGNER.sign(s -> s.identity(AwsCredentialsIdentity.create(accessKey, secretKey)).request(req.build())
        .payload(ContentStreamProvider.fromByteArray(body))
        .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1")
        .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
        .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, false)
        .putProperty(AwsV4HttpSigner.NORMALIZE_PATH, false)
        .putProperty(AwsV4FamilyHttpSigner.PAYLOAD_SIGNING_ENABLED, true));
    for (Map.Entry<String, List<String>> h : signed.request().headers().entrySet()) {
      if (!h.getKey().equalsIgnoreCase("host")) {
        h.getValue().forEach(v -> b.setHeader(h.getKey(), v));
      }
    }
    return b;
  }

  /**
   * A presigned GET URL for {@code url} as the SDK's signer makes it, signed at {@code signedAt} and valid for
   * {@code validFor}: a URL signed in the past tests expiry without waiting for it.
   */
  public static URI presignGet(String url, java.time.Instant signedAt, java.time.Duration validFor,
      String accessKey, String secretKey) {
    URI u = URI.create(url);
    SdkHttpRequest req = SdkHttpRequest.builder().method(SdkHttpMethod.GET).protocol(u.getScheme()).host(u.getHost())
        .port(u.getPort()).encodedPath(u.getRawPath()).build();
    var signed = SIGNER.sign(s -> s.identity(AwsCredentialsIdentity.create(accessKey, secretKey)).request(req)
        .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1")
        .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
        .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, false)
        .putProperty(AwsV4HttpSigner.NORMALIZE_PATH, false)
        .putProperty(AwsV4HttpSigner.AUTH_LOCATION, AwsV4HttpSigner.AuthLocation.QUERY_STRING)
        .putProperty(AwsV4HttpSigner.EXPIRATION_DURATION, validFor)
        .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, false)
        .putProperty(AwsV4HttpSigner.SIGNING_CLOCK, java.time.Clock.fixed(signedAt, java.time.ZoneOffset.UTC)));
    return signed.request().getUri();
  }
}
