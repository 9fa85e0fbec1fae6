package io.granary.common.s3.auth;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A SigV4 signing key: {@code kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), service),
 * "aws4_request")}, and HMAC-SHA256 with it. Immutable and thread-safe; the key bytes never leave it.
 */
public final class SigningKey {
  private static final String HMAC_SHA256 = "HmacSHA256";

  /** One Mac per thread: Mac.getInstance walks the provider list, which costs more than the HMAC itself. */
  private static final ThreadLocal<Mac> MAC = ThreadLocal.withInitial(() -> {
    try {
      return Mac.getInstance(HMAC_SHA256);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available", e);
    }
  });

  private final SecretKeySpec key;

  private SigningKey(byte[] key) {
    this.key = new SecretKeySpec(key, HMAC_SHA256);
  }

  /** Derives the key of {@code secret} for one day ({@code yyyyMMdd}), region and service. */
  public static SigningKey derive(String secret, String date, String region, String service) {
    byte[] k = hmac(("AWS4" + secret).getBytes(StandardCharsets.UTF_8), date);
    k = hmac(k, region);
    k = hmac(k, service);
    return new SigningKey(hmac(k, "aws4_request"));
  }

  /** HMAC-SHA256 of {@code data} (UTF-8) under this key. */
  public byte[] sign(String data) {
    return hmac(key, data);
  }

  private static byte[] hmac(byte[] key, String data) {
    return hmac(new SecretKeySpec(key, HMAC_SHA256), data);
  }

  private static byte[] hmac(SecretKeySpec key, String data) {
    Mac mac = MAC.get();
    try {
      mac.init(key);
    } catch (InvalidKeyException e) {
      throw new IllegalStateException("an HMAC key was refused", e); // any byte string is an HMAC key
    }
    return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public String toString() {
    return "SigningKey[***]";
  }
}
