package io.granary.backend;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * One signed object GET, ready to be sent as is over plain HTTP/1.1 (see {@link PlainHttpReads}).
 *
 * @param host the server to connect to (a name or an address literal)
 * @param port its port
 * @param target the request target: raw path and query, percent-encoded as signed
 * @param headers the request headers, {@code Host} and the signature's among them, in order
 * @param readTimeout the longest silence to tolerate before the head or between body bytes
 * @param what names the read in messages, e.g. {@code GET s3://bucket/key}
 */
public record PlainHttpGet(String bucket, String key, long offset, long length, String host, int port, String target,
    List<Map.Entry<String, String>> headers, Duration readTimeout, String what) {
  public PlainHttpGet {
    headers = List.copyOf(headers);
  }
}
