package io.granary.target.rebalance;

import io.granary.clustermap.Node;
import io.granary.common.api.GranaryHeaders;
import io.granary.common.auth.ClusterSigner;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.http.client.UpstreamPool;
import io.granary.common.http.relay.ObjectRelay;
import io.granary.common.http.relay.PlainBody;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;

/**
 * Get-from-neighbor as a relay: a GET or HEAD of an object that has not reached this owner yet is answered by the
 * target that still holds it, streamed through as that target reads it, and its own read handler answers (ranges,
 * conditions, headers, ACLs), so the client waits for one read, not for the whole object to be sent, synced and
 * committed here first. Used for large objects, which the holder pushes here meanwhile
 * ({@link NeighborLookup#fetch}); holders are asked in order (the one pushing first); one that does not have the
 * object (404), fails or cannot be reached passes the request on to the next.
 *
 * <p>One per request; event loop only. The request has no body.
 */
final class NeighborRelay implements RequestHandler {
  /**
   * What every relayed read of one target shares: its id, its connections to the others, its signer (null without a
   * cluster secret), and the counter of reads answered by a relay.
   */
  record Via(String self, UpstreamPool pool, ClusterSigner signer, RebalanceStats stats) {
  }

  /** What happened when no holder answered. */
  interface Exhausted {
    /**
     * @param absent every holder answered that it does not have the object (none failed or was skipped)
     */
    void none(boolean absent);
  }

  private final Via via;
  private final List<Node> holders;
  private final long mapVersion;
  private final Exhausted onNone;
  private HttpExchange ex;
  private ObjectRelay current;
  private int next;
  private boolean skipped; // a holder failed, could not be reached or was not serving
  private boolean gone;    // the client went away: no more attempts

  /**
   * @param holders the targets that may hold the object, in the order to ask them
   * @param onNone called, instead of answering, when no holder had the object; the exchange is untouched
   */
  NeighborRelay(Via via, List<Node> holders, long mapVersion, Exhausted onNone) {
    this.via = via;
    this.holders = holders;
    this.mapVersion = mapVersion;
    this.onNone = onNone;
  }

  @Override
  public void onRequest(HttpExchange exchange) {
    this.ex = exchange;
    askNext();
  }

  private void askNext() {
    if (gone) {
      return;
    }
    while (next < holders.size() && !holders.get(next).state().serving()) {
      skipped = true;
      next++;
    }
    if (next == holders.size()) {
      current = null;
      onNone.none(!skipped);
      return;
    }
    Node holder = holders.get(next++);
    URI at = URI.create(holder.url());
    current = new ObjectRelay(via.pool(), new InetSocketAddress(at.getHost(), at.getPort()), holder.id(),
        head(at), new PlainBody(0, null), new ObjectRelay.Fallback() {
          @Override
          public boolean relays(HttpResponse head) {
            int status = head.status().code();
            boolean relayed = status != 404 && status < 500;
            if (relayed) {
              via.stats().neighborRead();
            }
            return relayed;
          }

          @Override
          public void instead(HttpResponse head, Throwable cause) {
            if (head == null || head.status().code() != 404) {
              skipped = true;
            }
            askNext();
          }
        });
    current.onRequest(ex);
    // The request has no body: its end has been read already, or will be and then go nowhere.
    current.onContent(ex, LastHttpContent.EMPTY_LAST_CONTENT);
  }

  /** The client's request as the holder is to read it: the same method, target and conditions, signed by us. */
  private HttpRequest head(URI at) {
    HttpRequest req = ex.request();
    String uri = ClusterSigner.stripUrlSignature(req.uri());
    HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, req.method(), uri);
    HttpHeaders h = head.headers();
    h.set(req.headers());
    h.remove(HttpHeaderNames.CONNECTION).remove(HttpHeaderNames.KEEP_ALIVE).remove(HttpHeaderNames.UPGRADE)
        .remove(HttpHeaderNames.TE).remove(HttpHeaderNames.EXPECT).remove(HttpHeaderNames.TRANSFER_ENCODING)
        .remove(HttpHeaderNames.CONTENT_LENGTH).remove(HttpHeaderNames.AUTHORIZATION);
    h.set(HttpHeaderNames.HOST, at.getHost() + ":" + at.getPort());
    h.set(GranaryHeaders.NEIGHBOR_READ, via.self());
    h.set(GranaryHeaders.MAP_VERSION, mapVersion);
    if (via.signer() != null) {
      via.signer().signHeaders(head.method().name(), uri, h);
    } else {
      h.remove(ClusterSigner.TIME_HEADER).remove(ClusterSigner.SIGNATURE_HEADER);
    }
    return head;
  }

  @Override
  public void onContent(HttpExchange exchange, HttpContent chunk) {
    // no body to relay: each attempt got its (empty) end when it started
  }

  @Override
  public void onAbort(HttpExchange exchange, Throwable cause) {
    if (current != null) {
      current.onAbort(exchange, cause);
    }
    gone = true;
  }

  @Override
  public void onClientWritabilityChanged(HttpExchange exchange, boolean writable) {
    if (current != null) {
      current.onClientWritabilityChanged(exchange, writable);
    }
  }

  @Override
  public void onClientClosed(HttpExchange exchange) {
    if (current != null) {
      current.onClientClosed(exchange);
    }
    gone = true;
  }

  /**
   * Whether a request is a neighbor's relayed read (see {@link GranaryHeaders#NEIGHBOR_READ}), or a client's read
   * that a neighbor redirected here ({@link NeighborRedirect}).
   */
  static boolean isNeighborRead(HttpExchange ex) {
    return ex.request().headers().contains(GranaryHeaders.NEIGHBOR_READ) || NeighborRedirect.isRedirectedRead(ex);
  }
}
