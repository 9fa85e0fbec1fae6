package io.granary.proxy.jobs;

import com.fasterxml.jackson.databind.JavaType;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.Node;
import io.granary.common.control.ControlClient;
import io.granary.common.http.RequestPath;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/** {@link TargetJobClient} over the signed {@link ControlClient}. */
final class ControlTargetJobClient implements TargetJobClient {
  static final String JOBS = "/v1/jobs";
  private static final JavaType SNAPSHOT = ClusterJson.mapper().constructType(TargetSnapshot.class);
  private static final JavaType LIST = ClusterJson.mapper().getTypeFactory()
      .constructCollectionType(List.class, TargetSnapshot.class);

  private final ControlClient client;

  ControlTargetJobClient(ControlClient client) {
    this.client = client;
  }

  @Override
  public CompletableFuture<TargetSnapshot> start(Node target, TargetJobSpec spec) {
    return client.send("POST", target.url() + JOBS, spec, TargetSnapshot.class);
  }

  @Override
  public CompletableFuture<Optional<TargetSnapshot>> get(Node target, String id) {
    return orEmpty(client.<TargetSnapshot>get(url(target, id), SNAPSHOT));
  }

  @Override
  public CompletableFuture<List<TargetSnapshot>> list(Node target) {
    return client.get(target.url() + JOBS, LIST);
  }

  @Override
  public CompletableFuture<Optional<TargetSnapshot>> abort(Node target, String id) {
    return orEmpty(client.send("DELETE", url(target, id), null, TargetSnapshot.class));
  }

  private static String url(Node target, String id) {
    return target.url() + JOBS + "/" + RequestPath.encodePath(id);
  }

  /** 404 NoSuchJob becomes empty; any other 404 (say, a target without job endpoints) stays an error. */
  private static CompletableFuture<Optional<TargetSnapshot>> orEmpty(CompletableFuture<TargetSnapshot> f) {
    return f.handle((s, err) -> {
      if (err == null) {
        return Optional.ofNullable(s);
      }
      if (ControlClient.cause(err) instanceof ControlClient.RemoteCallException rce && rce.status() == 404
          && "NoSuchJob".equals(rce.error().code())) {
        return Optional.empty();
      }
      throw err instanceof RuntimeException re ? re : new CompletionException(err);
    });
  }
}
