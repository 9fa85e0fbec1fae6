package io.granary.common.api;

import io.netty.util.AsciiString;

/** HTTP headers of the native API. */
public final class GranaryHeaders {
  /** The object's checksum algorithm (response), or the algorithm of a client-supplied checksum (PUT). */
  public static final AsciiString CHECKSUM_TYPE = AsciiString.cached("granary-checksum-type");
  /** The object's checksum, lowercase hex (response), or the checksum the PUT body must match. */
  public static final AsciiString CHECKSUM_VALUE = AsciiString.cached("granary-checksum-value");

  private GranaryHeaders() {}
}
