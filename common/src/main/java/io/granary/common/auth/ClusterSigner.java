package io.granary.common.auth;

import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs and checks requests between the nodes of one cluster with HMAC-SHA256 under the cluster secret, so a
 * target serves only requests a proxy (or the primary) has vouched for.
 *
 * <p>Two forms: headers {@code Granary-Cluster-Time} + {@code Granary-Cluster-Signature} on requests a node sends
 * itself (valid for {@value #HEADER_SKEW_SECONDS} s either side of the time, to tolerate clock skew), and query
 * parameters {@code granary-expires} + {@code granary-signature} on redirect URLs handed to clients (valid until
 * the expiry). The signed string is {@code METHOD \n PATH?QUERY \n TIME}, where PATH?QUERY is the raw request
 * target without the signature parameter. Thread-safe.
 */
public final class ClusterSigner {
  public static final AsciiString TIME_HEADER = AsciiString.cached("granary-cluster-time");
  public static final AsciiString SIGNATURE_HEADER = AsciiString.cached("granary-cluster-signature");
  public static final String EXPIRES_PARAM = "granary-expires";
  public static final String SIGNATURE_PARAM = "granary-signature";
  static final long HEADER_SKEW_SECONDS = 300;

  private final Clock clock;
  /** A Mac is not thread-safe; one initialised per thread saves a provider lookup and key setup per request. */
  private final ThreadLocal<Mac> macs;

  public ClusterSigner(byte[] secret, Clock clock) {
    if (secret.length < 16) {
      throw new IllegalArgumentException("the cluster secret must be at least 16 bytes");
    }
    SecretKeySpec key = new SecretKeySpec(secret.clone(), "HmacSHA256");
    this.clock = clock;
    this.macs = ThreadLocal.withInitial(() -> {
      try {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(key);
        return mac;
      } catch (NoSuchAlgorithmException | InvalidKeyException e) {
        throw new IllegalStateException("HmacSHA256 unavailable", e);
      }
    });
  }

  /** A signer from a secret given as text (e.g. an environment variable or a file's first line). */
  public static ClusterSigner of(String secret) {
    return new ClusterSigner(secret.trim().getBytes(StandardCharsets.UTF_8), Clock.systemUTC());
  }

  /** Adds the signature headers for {@code method} and {@code uri} (path and query, as sent). */
  public void signHeaders(String method, String uri, HttpHeaders headers) {
    long now = clock.instant().getEpochSecond();
    headers.set(TIME_HEADER, now);
    headers.set(SIGNATURE_HEADER, mac(method, uri, now));
  }

  /** {@code uri} with {@code granary-expires} and {@code granary-signature} appended, valid for {@code seconds}. */
  public String signUrl(String method, String uri, long seconds) {
    long expires = clock.instant().getEpochSecond() + seconds;
    String withExpiry = uri + (uri.indexOf('?') < 0 ? "?" : "&") + EXPIRES_PARAM + "=" + expires;
    return withExpiry + "&" + SIGNATURE_PARAM + "=" + mac(method, withExpiry, expires);
  }

  /**
   * Whether a request carries a valid cluster signature, in headers or in its URL. {@code uri} is the raw request
   * target (path and query) as received.
   */
  public boolean verify(String method, String uri, HttpHeaders headers) {
    String sig = headers.get(SIGNATURE_HEADER);
    String time = headers.get(TIME_HEADER);
    long now = clock.instant().getEpochSecond();
    if (sig != null && time != null) {
      long t = parse(time);
      return t > 0 && Math.abs(now - t) <= HEADER_SKEW_SECONDS && equal(sig, mac(method, uri, t));
    }
    int at = uri.lastIndexOf("&" + SIGNATURE_PARAM + "=");
    if (at < 0) {
      return false;
    }
    String signed = uri.substring(0, at);
    String given = uri.substring(at + SIGNATURE_PARAM.length() + 2);
    int e = signed.lastIndexOf(EXPIRES_PARAM + "=");
    if (e < 0 || (signed.charAt(e - 1) != '?' && signed.charAt(e - 1) != '&')) {
      return false;
    }
    long expires = parse(signed.substring(e + EXPIRES_PARAM.length() + 1));
    return expires >= now && equal(given, mac(method, signed, expires));
  }

  /**
   * Whether a request carries a valid signature in its headers: sent by a node of the cluster itself, not by a
   * client holding a signed redirect URL.
   */
  public boolean verifyHeaders(String method, String uri, HttpHeaders headers) {
    return headers.contains(SIGNATURE_HEADER) && headers.contains(TIME_HEADER) && verify(method, uri, headers);
  }

  /** The request target with the URL-signature parameters removed (what handlers should parse). */
  public static String stripUrlSignature(String uri) {
    int e = uri.indexOf(EXPIRES_PARAM + "=");
    if (e < 1 || (uri.charAt(e - 1) != '?' && uri.charAt(e - 1) != '&')) {
      return uri;
    }
    return uri.substring(0, e - 1); // signUrl always appends the signature parameters last
  }

  private String mac(String method, String uri, long time) {
    byte[] out = macs.get().doFinal((method + "\n" + uri + "\n" + time).getBytes(StandardCharsets.UTF_8));
    return Base64.getUrlEncoder().withoutPadding().encodeToString(out);
  }

  private static boolean equal(String a, String b) {
    return MessageDigest.isEqual(a.getBytes(StandardCharsets.US_ASCII), b.getBytes(StandardCharsets.US_ASCII));
  }

  private static long parse(String s) {
    try {
      return Long.parseLong(s.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
