package io.granary.target.ec;

import io.granary.clustermap.Node;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.control.ControlClient;
import io.granary.common.http.RequestPath;
import io.granary.target.rebalance.PeerFiles;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Calls to other targets' {@link SliceRoutes}: slices leave zero-copy over the object transport's connections
 * ({@link PeerFiles}); records, deletes and slice reads go through the cluster-signed {@link ControlClient}.
 * {@link #send} blocks its (worker) caller.
 */
final class EcPeers {
  private final PeerFiles files;
  private final ControlClient control;

  EcPeers(PeerFiles files, ControlClient control) {
    this.files = files;
    this.control = control;
  }

  static String uri(String prefix, BucketProps b, String name) {
    return prefix + b.bucket().name() + "/" + RequestPath.encodePath(name) + "?provider="
        + b.bucket().provider().wireName() + "&bid=" + b.id();
  }

  /** Sends the slice in {@code ch} (from its start) to {@code to}; an IOException when it was not stored. */
  void send(Node to, BucketProps b, String name, SliceRecord r, FileChannel ch, long mapVersion) throws IOException,
      InterruptedException {
    String header = Base64.getEncoder().encodeToString(r.encode());
    PeerFiles.Answer a = files.put(to, uri(SliceRoutes.SLICES, b, name), Map.of(SliceRoutes.RECORD_HEADER, header),
        ch, r.sliceSize(), mapVersion);
    if (a.status() != 200) {
      throw new IOException("target " + to.id() + " refused slice " + r.stem() + ": " + a.status() + " "
          + new String(a.body(), StandardCharsets.UTF_8));
    }
  }

  /** The slice records {@code from} holds for the object. */
  CompletableFuture<List<SliceRecord>> records(Node from, BucketProps b, String name) {
    return control.get(from.url() + uri(SliceRoutes.RECORDS, b, name), SliceRoutes.Records.class)
        .thenApply(SliceRoutes.Records::records);
  }

  /** Removes the object's slices on {@code on}, but those of version {@code keep}. */
  CompletableFuture<Void> removeOthers(Node on, BucketProps b, String name, String keep) {
    return remove(on, "&keep=" + RequestPath.encodePath(keep), b, name);
  }

  /**
   * Removes the object's slices on {@code on}, but slice {@code index} of version {@code keep}: what a holder
   * keeps when placement gave it another slice of the same version than before.
   */
  CompletableFuture<Void> removeOthers(Node on, BucketProps b, String name, String keep, int index) {
    return remove(on, "&keep=" + RequestPath.encodePath(keep) + "&keepIndex=" + index, b, name);
  }

  /** Removes the object's slices on {@code on} of versions not newer than {@code before} (epoch ms). */
  CompletableFuture<Void> removeUpTo(Node on, BucketProps b, String name, long before) {
    return remove(on, "&before=" + before, b, name);
  }

  private CompletableFuture<Void> remove(Node on, String query, BucketProps b, String name) {
    String url = on.url() + uri(SliceRoutes.SLICES, b, name) + query;
    return control.send("DELETE", url, null, Void.class);
  }

  /** What the object's owner {@code owner} says of it now; null when it knows nothing of it. */
  CompletableFuture<SliceRoutes.Current> current(Node owner, BucketProps b, String name) {
    return control.get(owner.url() + uri(SliceRoutes.CURRENT, b, name), SliceRoutes.Current.class)
        .exceptionally(e -> {
          if (ControlClient.cause(e) instanceof ControlClient.RemoteCallException r && r.status() == 404) {
            return null;
          }
          throw new java.util.concurrent.CompletionException(ControlClient.cause(e));
        });
  }

  /** The positions in {@code asked} of the slices {@code holder} does not hold whole. */
  CompletableFuture<List<Integer>> missing(Node holder, BucketProps b, List<SliceRoutes.HeldSlice> asked) {
    SliceRoutes.HeldQuery q = new SliceRoutes.HeldQuery(b.bucket().provider().wireName(), b.bucket().name(), b.id(),
        asked);
    return control.send("POST", holder.url() + SliceRoutes.HELD, q, SliceRoutes.HeldAnswer.class)
        .thenApply(SliceRoutes.HeldAnswer::missing);
  }

  /** Asks {@code target} to audit the slices of the objects it owns: {@code holder} lost some. */
  CompletableFuture<Void> askAudit(Node target, String holder) {
    return control.send("POST", target.url() + SliceRoutes.AUDIT + "?holder=" + RequestPath.encodePath(holder),
        null, Void.class);
  }

  /** Opens slice {@code index} of {@code version} on {@code from}; an IOException unless it answered 200. */
  InputStream open(Node from, BucketProps b, String name, String version, int index) throws IOException,
      InterruptedException {
    String url = from.url() + uri(SliceRoutes.SLICES, b, name) + "&version=" + RequestPath.encodePath(version)
        + "&index=" + index;
    HttpResponse<InputStream> r;
    try {
      r = control.stream(url).get();
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IOException("reading slice " + index + " from target " + from.id() + ": "
          + ControlClient.cause(e), e);
    }
    if (r.statusCode() != 200) {
      r.body().close();
      throw new IOException("target " + from.id() + " answered " + r.statusCode() + " for slice " + index);
    }
    return r.body();
  }
}
