package io.granary.operator.reconciler;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.granary.operator.customresource.GranaryCluster;
import io.granary.operator.resources.AuthKeys;
import io.granary.common.s3.auth.Credentials;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;

/** The key pair in the cluster's auth Secret, which the operator signs its cluster API calls with. */
final class AuthCredentials {
  private AuthCredentials() {
  }

  /**
   * Empty without {@code spec.authSecret}. Throws {@link IllegalStateException} (a sentence for the status, never
   * the values) when the Secret or one of its keys is missing.
   */
  static Optional<Credentials> read(KubernetesClient client, GranaryCluster c) {
    String name = c.getSpec().authSecret;
    if (name == null) {
      return Optional.empty();
    }
    Secret s = client.secrets().inNamespace(c.getMetadata().getNamespace()).withName(name).get();
    if (s == null) {
      throw new IllegalStateException("auth Secret " + name + " does not exist");
    }
    return Optional.of(new Credentials(value(s, AuthKeys.ACCESS_KEY), value(s, AuthKeys.SECRET_KEY)));
  }

  private static String value(Secret s, String key) {
    Map<String, String> data = s.getData();
    if (data != null && data.get(key) != null) {
      return new String(Base64.getDecoder().decode(data.get(key)), StandardCharsets.UTF_8).trim();
    }
    Map<String, String> plain = s.getStringData();
    if (plain != null && plain.get(key) != null) {
      return plain.get(key).trim();
    }
    throw new IllegalStateException("auth Secret " + s.getMetadata().getName() + " has no key " + key);
  }
}
