package io.granary.loader.protocol;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

/**
 * Signs the loader's S3 GETs with the AWS SDK's own SigV4 signer (header form, path-style, region us-east-1, the
 * empty payload), as the SDK's client would sign them, for {@link Http1Gets} to send.
 */
final class S3GetSigner {
  private final AwsV4HttpSigner signer = AwsV4HttpSigner.create();
  private final AwsCredentialsIdentity identity;

  S3GetSigner(String accessKey, String secretKey) {
    this.identity = AwsCredentialsIdentity.create(accessKey, secretKey);
  }

  /** The headers that sign a GET of {@code uri} (no Host: the client sends it as the signer saw it). */
  Map<String, String> sign(URI uri) {
    SignedRequest signed = signer.sign(r -> r.identity(identity)
        .request(SdkHttpRequest.builder().method(SdkHttpMethod.GET).uri(uri).build())
        .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
        .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1")
        .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, false)
        .putProperty(AwsV4HttpSigner.NORMALIZE_PATH, false));
    Map<String, String> headers = new LinkedHashMap<>();
    for (Map.Entry<String, List<String>> h : signed.request().headers().entrySet()) {
      if (!h.getKey().equalsIgnoreCase("Host") && !h.getValue().isEmpty()) {
        headers.put(h.getKey(), h.getValue().get(0));
      }
    }
    return headers;
  }
}
