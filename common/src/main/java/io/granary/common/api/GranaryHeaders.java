package io.granary.common.api;

import io.netty.util.AsciiString;

/** HTTP headers of the native API. */
public final class GranaryHeaders {
  /** The object's checksum algorithm (response), or the algorithm of a client-supplied checksum (PUT). */
  public static final AsciiString CHECKSUM_TYPE = AsciiString.cached("granary-checksum-type");
  /** The object's checksum, lowercase hex (response), or the checksum the PUT body must match. */
  public static final AsciiString CHECKSUM_VALUE = AsciiString.cached("granary-checksum-value");

  /**
   * The cluster-map version a node routed a request by (proxies on the S3 relay, targets on copy-source reads). A
   * target holding an older map first waits for the newer one, so it never answers by a placement older than the
   * one that sent the request there.
   */
  public static final AsciiString MAP_VERSION = AsciiString.cached("granary-map-version");
  /** {@link #MAP_VERSION} as a query parameter, on the redirect URLs proxies hand to native clients. */
  public static final String MAP_VERSION_PARAM = "granary-map";

  private GranaryHeaders() {}
}
