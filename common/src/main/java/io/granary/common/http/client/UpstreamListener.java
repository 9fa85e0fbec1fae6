package io.granary.common.http.client;

import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;

/**
 * Receives what one upstream exchange produces. Callbacks run on the connection's event loop (the caller's own,
 * see {@link UpstreamPool}). The listener owns each {@link HttpContent} it is given and must release it or pass
 * it on.
 */
public interface UpstreamListener {
  /** The response head arrived. */
  void onResponse(HttpResponse head);

  /** A body chunk; the last one is a {@code LastHttpContent}. */
  void onContent(HttpContent content);

  /**
   * The connection's current burst of reads is over (Netty's {@code channelReadComplete}): a listener that
   * wrote what it read without flushing flushes now, one syscall for the whole burst.
   */
  default void onReadComplete() {
  }

  /** The upstream connection can take more bytes, or cannot. */
  void onWritabilityChanged(boolean writable);

  /**
   * The upstream connection failed or closed before the exchange completed. The pool takes the connection back
   * itself: the listener must not release it.
   */
  void onFailure(Throwable cause);
}
