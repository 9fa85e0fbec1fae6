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

  /**
   * Set by a proxy on an S3 read it relays for an unsigned client (with anonymous access not enabled): the target
   * serves the object only when its ACL is public-read, else 403 AccessDenied. Targets serve only cluster-signed
   * requests, so only a proxy can send it; a proxy removes any a client sent and never redirects such a read.
   */
  public static final AsciiString ANONYMOUS = AsciiString.cached("granary-anonymous");

  /**
   * Set by a proxy on an S3 PUT or UploadPart whose aws-chunked body ended in a checksum trailer the proxy verified:
   * the trailer's name ({@code x-amz-checksum-crc32}...). The target receives the decoded body only, computes that
   * checksum too and keeps it with the object as if the client had sent it as a header. A proxy drops any a client
   * sent.
   */
  public static final AsciiString CHECKSUM_TRAILER = AsciiString.cached("granary-checksum-trailer");

  /**
   * Set by a target that relays a read of an object that has not reached it yet from the target that still holds
   * it (get-from-neighbor): the value is the relaying target's id. The holder answers from what it has and nothing
   * else: 404 rather than a cold GET or a get-from-neighbor of its own. A proxy drops any a client sent.
   */
  public static final AsciiString NEIGHBOR_READ = AsciiString.cached("granary-neighbor-read");

  private GranaryHeaders() {}
}
