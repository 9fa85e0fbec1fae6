package io.granary.operator.resources;

/** Keys of the user's auth Secret ({@code spec.authSecret}): the S3 key pair proxies accept and the operator signs with. */
public final class AuthKeys {
  public static final String ACCESS_KEY = "access-key";
  public static final String SECRET_KEY = "secret-key";

  private AuthKeys() {
  }
}
