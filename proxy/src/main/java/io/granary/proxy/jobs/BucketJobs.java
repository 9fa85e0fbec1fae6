package io.granary.proxy.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.granary.clustermap.Node;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.Provider;
import io.granary.common.control.ControlClient;
import io.granary.common.error.BadRequestException;
import io.granary.common.error.NoSuchJobException;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.membership.ClusterMetadataHolder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * A job kind that runs per bucket on every target and whose progress the targets keep (make-n-copies, scrub): one
 * job per bucket, id {@code PREFIX + PROVIDER.BUCKET}; starting it POSTs {@code TARGET_PATH?bucket=&provider=} to
 * every serving target, its status GETs {@code TARGET_PATH} from each and sums the reports ({@link Summer}).
 * Stateless: any proxy answers. Such jobs cannot be aborted (400 with the kind's reason). A kind extends this with
 * its constants and its sum.
 *
 * @param <S> the kind's job status record
 */
public abstract class BucketJobs<S> implements JobKind {
  private final ClusterMetadataHolder cluster;
  private final ControlClient client;
  private final String kind;
  private final String prefix;
  private final String targetPath;
  private final String listField;
  private final ScheduledExecutorService timer;
  private final Summer<S> sum;
  private final Predicate<S> ongoing;
  private final Predicate<S> none;
  private final String abortRefusal;

  /** Sums the targets' reports ({@link #ask}) into one bucket's job status. */
  @FunctionalInterface
  public interface Summer<S> {
    S sum(Bucket b, Map<String, JsonNode> answers);
  }

  /** How the targets' reports of a kind read. */
  public record Reports(String targetPath, String listField) {
  }

  /** How a kind's status is summed and read. */
  public record Statuses<S>(Summer<S> sum, Predicate<S> ongoing, Predicate<S> none) {
  }

  /**
   * @param reports {@code targetPath}: the targets' endpoint; {@code listField}: the array of a target's report that
   *     lists its jobs, each with {@code "bucket":"PROVIDER/NAME"}
   * @param statuses {@code sum}: the targets' reports of a bucket summed; {@code ongoing}: whether a status is not
   *     final; {@code none}: whether no target has a part (404)
   * @param timer times the polls of a status asked with {@code ?wait}
   * @param abortRefusal why the kind cannot be aborted (the 400's message)
   */
  protected BucketJobs(ClusterMetadataHolder cluster, ControlClient client, ScheduledExecutorService timer,
      String kind, String prefix, Reports reports, Statuses<S> statuses, String abortRefusal) {
    this.cluster = cluster;
    this.client = client;
    this.kind = kind;
    this.prefix = prefix;
    this.targetPath = reports.targetPath();
    this.listField = reports.listField();
    this.timer = timer;
    this.sum = statuses.sum();
    this.ongoing = statuses.ongoing();
    this.none = statuses.none();
    this.abortRefusal = abortRefusal;
  }

  @Override
  public String kind() {
    return kind;
  }

  @Override
  public String idPrefix() {
    return prefix;
  }

  @Override
  public CompletableFuture<Map<String, String>> start(JsonNode body) {
    return start(bucketOfBody(body));
  }

  @Override
  public CompletableFuture<Object> abort(String id) {
    throw BadRequestException.invalidArgument(abortRefusal);
  }

  /** The job id of a bucket's job of this kind. */
  public static String idOf(String prefix, Bucket b) {
    return prefix + b.provider().wireName() + "." + b.name();
  }

  /** The bucket of a job id; 404 NoSuchJob for an id that names none. */
  public static Bucket bucketOf(String prefix, String id) {
    String rest = id.substring(prefix.length());
    int dot = rest.indexOf('.');
    if (dot < 1 || dot == rest.length() - 1) {
      throw new NoSuchJobException(id);
    }
    try {
      return new Bucket(Provider.parse(rest.substring(0, dot)), rest.substring(dot + 1));
    } catch (IllegalArgumentException e) {
      throw new NoSuchJobException(id);
    }
  }

  /**
   * The bucket a start body names: {@code {"kind":K,"bucket":"NAME","provider":"ais"}}, nothing else (400), of a
   * bucket the cluster has (404 BucketNotFound).
   */
  Bucket bucketOfBody(JsonNode body) {
    for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!f.equals("kind") && !f.equals("bucket") && !f.equals("provider")) {
        throw BadRequestException.invalidArgument("unknown field '" + f + "' for " + kind + "; the body is "
            + "{\"kind\":\"" + kind + "\",\"bucket\":\"NAME\",\"provider\":\"ais\"}");
      }
    }
    if (!body.path("bucket").isTextual() || body.path("bucket").asText().isEmpty()) {
      throw BadRequestException.invalidArgument(kind + " needs \"bucket\": the bucket's name");
    }
    Provider provider;
    try {
      provider = Provider.parse(body.path("provider").isTextual() ? body.path("provider").asText() : body.has(
          "provider") ? body.path("provider").toString() : "ais");
    } catch (IllegalArgumentException e) {
      throw BadRequestException.invalidArgument(kind + ": " + e.getMessage());
    }
    Bucket b = new Bucket(provider, body.path("bucket").asText());
    cluster.requireBucket(b); // 404 BucketNotFound
    return b;
  }

  /** Asks every serving target to run the job on {@code b}; completes with {@code {"id":...}}, or 503. */
  private CompletableFuture<Map<String, String>> start(Bucket b) {
    String url = targetPath + "?bucket=" + URLEncoder.encode(b.name(), StandardCharsets.UTF_8) + "&provider="
        + b.provider().wireName();
    List<CompletableFuture<?>> calls = new ArrayList<>();
    for (Node t : targets()) {
      calls.add(client.send("POST", t.url() + url, null, JsonNode.class).handle((r, err) -> {
        if (err != null) {
          throw new ServiceUnavailableException(ServiceUnavailableException.TARGET_OFFLINE, "target " + t.id()
              + " did not start " + kind + " of " + b + ": " + ControlClient.cause(err), 5);
        }
        return r;
      }));
    }
    return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
        .thenApply(v -> Map.of("id", idOf(prefix, b)));
  }

  /**
   * The status of job {@code id}: the targets' reports summed; with {@code wait}, once it is no longer ongoing or the
   * wait is over. 404 NoSuchJob when no target has a part.
   */
  @Override
  public CompletableFuture<Object> status(String id, Duration wait) {
    Bucket b = bucketOf(prefix, id);
    Supplier<CompletableFuture<S>> once = () -> ask().thenApply(answers -> {
      S s = sum.sum(b, answers);
      if (none.test(s)) {
        throw new NoSuchJobException(idOf(prefix, b));
      }
      return s;
    });
    CompletableFuture<S> s = wait == null ? once.get() : ProxyJobs.awaitEnd(once, ongoing, wait, timer);
    return s.thenApply(x -> x);
  }

  /** Every bucket's job any target reports, summed, in bucket order. */
  @Override
  public CompletableFuture<List<Object>> list() {
    return ask().thenApply(answers -> {
      TreeSet<String> buckets = new TreeSet<>();
      for (JsonNode a : answers.values()) {
        for (JsonNode w : a.path(listField)) {
          buckets.add(w.path("bucket").asText());
        }
      }
      List<Object> out = new ArrayList<>();
      for (String key : buckets) {
        int slash = key.indexOf('/');
        out.add(sum.sum(new Bucket(Provider.parse(key.substring(0, slash)), key.substring(slash + 1)), answers));
      }
      return out;
    });
  }

  /** Every serving target's report, by target id; a target that did not answer maps to a node with "problem". */
  private CompletableFuture<Map<String, JsonNode>> ask() {
    Map<String, JsonNode> out = Collections.synchronizedMap(new TreeMap<>());
    List<CompletableFuture<Void>> calls = new ArrayList<>();
    for (Node t : targets()) {
      calls.add(client.get(t.url() + targetPath, JsonNode.class).handle((r, err) -> {
        out.put(t.id(), err == null ? r : JsonNodeFactory.instance.objectNode()
            .put("problem", "target " + t.id() + " did not answer: " + ControlClient.cause(err)));
        return null;
      }));
    }
    return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).thenApply(v -> out);
  }

  private List<Node> targets() {
    return cluster.require().map().targets().values().stream().filter(t -> t.state().serving()).toList();
  }
}
