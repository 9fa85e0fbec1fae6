package io.granary.common.s3.auth;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Signs a request as an S3 client does (SigV4 header form, {@code UNSIGNED-PAYLOAD}), for Granary's own clients of
 * the native API (the CLI against a proxy that requires signatures). It builds the canonical request with the very
 * code the proxy verifies with, so the two cannot drift apart.
 */
public final class RequestSigner {
  private static final String REGION = "us-east-1";
  private static final String SERVICE = "s3";
  private static final List<String> SIGNED = List.of("host", "x-amz-content-sha256", "x-amz-date");

  private final Credentials credentials;

  public RequestSigner(String accessKey, String secretKey) {
    this.credentials = new Credentials(accessKey, secretKey);
  }

  /**
   * The headers to send with the request: {@code x-amz-date}, {@code x-amz-content-sha256} and
   * {@code Authorization}.
   *
   * @param hostHeader the Host header the client sends ({@code host[:port]})
   * @param rawPath the path as sent (percent-encoded)
   * @param rawQuery the query as sent, without '?' (empty for none)
   */
  public Map<String, String> sign(String method, String hostHeader, String rawPath, String rawQuery, Instant now) {
    String amzDate = AmzDate.formatBasic(now);
    String date = amzDate.substring(0, 8);
    HttpHeaders h = new DefaultHttpHeaders()
        .set("host", hostHeader)
        .set("x-amz-content-sha256", PayloadMode.UNSIGNED.headerValue())
        .set("x-amz-date", amzDate);
    SignedRequest r = new SignedRequest(method, rawPath, rawQuery, h);
    String canonical = CanonicalRequest.build(r, QueryParameter.parse(r.rawQuery()), false, SIGNED,
        PayloadMode.UNSIGNED.headerValue());
    String scope = date + "/" + REGION + "/" + SERVICE + "/aws4_request";
    String signature = new ChunkSigner(SigningKey.derive(credentials.secretKey(), date, REGION, SERVICE), amzDate,
        scope).requestSignature(canonical);
    Map<String, String> out = new LinkedHashMap<>();
    out.put("x-amz-date", amzDate);
    out.put("x-amz-content-sha256", PayloadMode.UNSIGNED.headerValue());
    out.put("Authorization", "AWS4-HMAC-SHA256 Credential=" + credentials.accessKey() + "/" + scope
        + ", SignedHeaders=" + String.join(";", SIGNED) + ", Signature=" + signature);
    return out;
  }
}
