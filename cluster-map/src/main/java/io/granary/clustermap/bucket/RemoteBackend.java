package io.granary.clustermap.bucket;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * Where a remote bucket lives and how to authenticate to it. It names a credentials file (resolved on each node:
 * a mounted Secret in Kubernetes) and never holds a secret itself, because bucket metadata is persisted and pushed
 * to every node.
 *
 * @param endpoint base URL of the store ({@code http(s)://host[:port]}), or null for the provider's public one
 * @param region S3 signing region, or null for us-east-1
 * @param pathStyle S3 path-style addressing (most S3-compatible servers want it)
 * @param credentialsFile S3: an AWS shared-credentials file; GCS: a service-account JSON key; null for the
 *     provider's default chain (environment variables, instance metadata)
 * @param profile the profile to use from an S3 credentials file, or null for {@code default}
 * @param anonymous unsigned requests (public buckets, emulators)
 */
public record RemoteBackend(String endpoint, String region, boolean pathStyle, String credentialsFile, String profile,
    boolean anonymous) {
  public RemoteBackend {
    if (endpoint != null) {
      try {
        URI u = new URI(endpoint);
        if (u.getScheme() == null || !(u.getScheme().equals("http") || u.getScheme().equals("https"))
            || u.getHost() == null) {
          throw new IllegalArgumentException("endpoint must be an http(s)://host[:port] URL, got '" + endpoint + "'");
        }
      } catch (URISyntaxException e) {
        throw new IllegalArgumentException("endpoint is not a URL: '" + endpoint + "'", e);
      }
    }
    if (region != null && !region.matches("[a-z0-9-]{1,64}")) {
      throw new IllegalArgumentException("region must be lowercase letters, digits and dashes, got '" + region + "'");
    }
    if (anonymous && credentialsFile != null) {
      throw new IllegalArgumentException("a bucket cannot be both anonymous and use a credentials file");
    }
  }
}
