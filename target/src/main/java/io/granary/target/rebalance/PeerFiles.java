package io.granary.target.rebalance;

import io.granary.clustermap.Node;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.Map;

/**
 * Files other than objects sent to another target over the object transport's connections ({@link ObjectSender}):
 * cluster-signed, zero-copy from the file, a few small buffers per send whatever the file's size. Erasure coding
 * sends its slices and replicas so.
 *
 * <p>Threads: {@link #put} blocks its caller (a worker thread, never an event loop) until the receiver answers.
 */
public final class PeerFiles {
  private final ObjectSender sender;

  PeerFiles(ObjectSender sender) {
    this.sender = sender;
  }

  /** The receiver's answer: its status and (small) body. */
  public record Answer(int status, byte[] body) {
  }

  /**
   * PUTs the first {@code size} bytes of {@code file} to {@code uri} (path and query) on {@code to}.
   *
   * @param mapVersion the map version {@code to} was chosen by
   * @throws IOException when {@code to} cannot be reached or does not answer
   */
  public Answer put(Node to, String uri, Map<String, String> headers, FileChannel file, long size, long mapVersion)
      throws IOException, InterruptedException {
    HttpHeaders h = new DefaultHttpHeaders();
    headers.forEach(h::set);
    try {
      ObjectSender.Reply r = sender.put(to, uri, h, new byte[0], file, size, BandwidthCap.NONE, mapVersion);
      return new Answer(r.status(), r.body());
    } catch (TransferException e) {
      throw new IOException(e.getMessage(), e);
    }
  }
}
