package io.granary.common.auth;

import io.netty.handler.codec.http.HttpRequest;
import java.util.function.Predicate;

/**
 * Tells the cluster's own requests from clients' at the HTTP edge, for the connection cap's reserve
 * ({@code HttpLimits#reserve}): a request is the cluster's when another node signed its headers with the cluster
 * secret. A client's signed redirect URL does not count, nor does anything in a cluster without a secret.
 */
public final class ClusterRequests {
  private ClusterRequests() {
  }

  /** Requests whose headers {@code signer} verifies; none when {@code signer} is null (no cluster secret). */
  public static Predicate<HttpRequest> signedBy(ClusterSigner signer) {
    if (signer == null) {
      return req -> false;
    }
    return req -> signer.verifyHeaders(req.method().name(), req.uri(), req.headers());
  }
}
