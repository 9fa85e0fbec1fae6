package io.granary.operator.resources;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.granary.operator.customresource.GranaryCluster;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;

/**
 * The cluster secret nodes sign their requests to each other with. Generated once, when the Secret does not exist;
 * the reconciler never updates it (a new secret would split a running cluster) and nothing logs its value.
 */
public final class ClusterSecret {
  public static final String KEY = "cluster-secret";
  private static final SecureRandom RANDOM = new SecureRandom();

  private ClusterSecret() {
  }

  /** A new Secret holding 32 random bytes (43 URL-safe characters). */
  public static Secret generate(GranaryCluster c) {
    byte[] b = new byte[32];
    RANDOM.nextBytes(b);
    return new SecretBuilder()
        .withMetadata(Owned.meta(c, Names.clusterSecret(c), Labels.of(c)))
        .withType("Opaque")
        .withStringData(Map.of(KEY, Base64.getUrlEncoder().withoutPadding().encodeToString(b)))
        .build();
  }
}
