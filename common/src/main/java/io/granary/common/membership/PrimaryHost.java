package io.granary.common.membership;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;

/**
 * The host of the primary's URL, which may be a DNS name that resolves only later: in Kubernetes the proxies'
 * headless Service has a record only once a proxy pod runs, and pods start in any order. A node looks the name up
 * before each registration attempt, so that a missing record is reported as one (and retried), not as a failed
 * connection. Lookups block: call off event loops. The JVM caches failed lookups for
 * {@code networkaddress.cache.negative.ttl} seconds (the granary command sets 1).
 */
public final class PrimaryHost {
  private final String host;

  /** @param primaryUrl {@code http(s)://HOST[:PORT]}; throws IllegalArgumentException without a host */
  public PrimaryHost(String primaryUrl) {
    String h = URI.create(primaryUrl).getHost();
    if (h == null) {
      throw new IllegalArgumentException("not a URL with a host: " + primaryUrl);
    }
    this.host = h;
  }

  public String host() {
    return host;
  }

  /** Looks the host up; throws UnknownHostException when the name has no address (yet). */
  public InetAddress resolve() throws UnknownHostException {
    return InetAddress.getByName(host);
  }
}
