package io.granary.target.coldget;

import io.granary.common.exec.BoundedExecutor;
import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Resolved addresses of backend endpoints, for connections made on event loops, which must not wait for DNS. An
 * address literal is used as is; a name is resolved on a pool thread, and until it is, callers take their blocking
 * path. A resolution is reused for {@link #TTL_MS}, as the JVM caches a lookup, and refreshed in the background.
 */
final class BackendAddresses {
  static final long TTL_MS = 30_000;

  private record Resolved(InetSocketAddress address, long at) {}

  private final BoundedExecutor resolver;
  private final ConcurrentHashMap<String, Resolved> names = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Boolean> resolving = new ConcurrentHashMap<>();

  BackendAddresses(BoundedExecutor resolver) {
    this.resolver = resolver;
  }

  /** The address of {@code host:port} if known without a lookup now, else null (a lookup is started). */
  InetSocketAddress now(String host, int port) {
    byte[] literal = NetUtil.createByteArrayFromIpAddressString(host);
    if (literal != null) {
      try {
        return new InetSocketAddress(InetAddress.getByAddress(host, literal), port);
      } catch (UnknownHostException impossible) { // only for a byte array of the wrong length
        return null;
      }
    }
    String key = host + ":" + port;
    Resolved r = names.get(key);
    if (r == null || System.currentTimeMillis() - r.at() > TTL_MS) {
      refresh(key, host, port);
    }
    return r == null ? null : r.address();
  }

  private void refresh(String key, String host, int port) {
    if (resolving.putIfAbsent(key, Boolean.TRUE) != null) {
      return;
    }
    var done = resolver.submit(() -> {
      try {
        InetSocketAddress a = new InetSocketAddress(host, port);
        if (!a.isUnresolved()) {
          names.put(key, new Resolved(a, System.currentTimeMillis()));
        }
        return null;
      } finally {
        resolving.remove(key);
      }
    });
    if (done.isCompletedExceptionally()) { // the pool's queue is full: a later call tries again
      resolving.remove(key);
    }
  }
}
