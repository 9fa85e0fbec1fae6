package io.granary.proxy.mirror;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.Node;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.Provider;
import io.granary.common.control.ControlClient;
import io.granary.common.error.BadRequestException;
import io.granary.common.error.NoSuchJobException;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.proxy.jobs.JobKind;
import io.granary.proxy.jobs.ProxyJobs;
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

/**
 * {@code make-n-copies} behind {@code /v1/jobs} (docs/protection.md): every target walks a bucket's records and
 * adds or removes mirror copies, by itself when {@code mirror.copies} changes, or when asked with
 * {@code {"kind":"make-n-copies","bucket":"train","provider":"ais"}}. A bucket has one such job, the latest walk on
 * each target: its id is {@code mnc-PROVIDER.BUCKET}. Targets hold the progress ({@code GET /v1/mirror}); any proxy
 * answers, summing it.
 */
public final class MakeNCopiesJobs implements JobKind {
  static final String KIND = "make-n-copies";
  static final String PREFIX = "mnc-";
  private static final String TARGET_PATH = "/v1/mirror";

  private final ClusterMetadataHolder cluster;
  private final ControlClient client;
  private final ScheduledExecutorService timer;

  public MakeNCopiesJobs(ClusterMetadataHolder cluster, ControlClient client, ScheduledExecutorService timer) {
    this.cluster = cluster;
    this.client = client;
    this.timer = timer;
  }

  @Override
  public String kind() {
    return KIND;
  }

  @Override
  public String idPrefix() {
    return PREFIX;
  }

  /** The job id of a bucket's make-n-copies. */
  static String idOf(Bucket b) {
    return PREFIX + b.provider().wireName() + "." + b.name();
  }

  /** The bucket of a job id; 404 NoSuchJob for an id that names none. */
  static Bucket bucketOf(String id) {
    String rest = id.substring(PREFIX.length());
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

  @Override
  public CompletableFuture<Map<String, String>> start(JsonNode body) {
    for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!f.equals("kind") && !f.equals("bucket") && !f.equals("provider")) {
        throw BadRequestException.invalidArgument("unknown field '" + f + "' for make-n-copies; the body is "
            + "{\"kind\":\"make-n-copies\",\"bucket\":\"NAME\",\"provider\":\"ais\"}");
      }
    }
    if (!body.path("bucket").isTextual() || body.path("bucket").asText().isEmpty()) {
      throw BadRequestException.invalidArgument("make-n-copies needs \"bucket\": the bucket's name");
    }
    Bucket b = new Bucket(Provider.parse(body.path("provider").asText("ais")), body.path("bucket").asText());
    cluster.requireBucket(b); // 404 BucketNotFound
    String url = TARGET_PATH + "?bucket=" + URLEncoder.encode(b.name(), StandardCharsets.UTF_8) + "&provider="
        + b.provider().wireName();
    List<CompletableFuture<?>> calls = new ArrayList<>();
    for (Node t : targets()) {
      calls.add(client.send("POST", t.url() + url, null, JsonNode.class).handle((r, err) -> {
        if (err != null) {
          throw new ServiceUnavailableException(ServiceUnavailableException.TARGET_OFFLINE, "target " + t.id()
              + " did not start make-n-copies of " + b + ": " + ControlClient.cause(err), 5);
        }
        return r;
      }));
    }
    return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).thenApply(v -> Map.of("id", idOf(b)));
  }

  @Override
  public CompletableFuture<Object> status(String id, Duration wait) {
    Bucket b = bucketOf(id);
    CompletableFuture<MakeNCopiesStatus> s = wait == null ? status(b)
        : ProxyJobs.awaitEnd(() -> status(b), MakeNCopiesStatus::ongoing, wait, timer);
    return s.thenApply(x -> x);
  }

  /** Walks cannot be stopped (a walk only queues; the copies are what the setting asks): answers the status. */
  @Override
  public CompletableFuture<Object> abort(String id) {
    throw BadRequestException.invalidArgument("a make-n-copies job cannot be aborted: set mirror.copies back "
        + "(PATCH /v1/buckets/BUCKET) and its walk removes the copies again");
  }

  @Override
  public CompletableFuture<List<Object>> list() {
    return ask().thenApply(answers -> {
      TreeSet<String> buckets = new TreeSet<>();
      for (JsonNode a : answers.values()) {
        for (JsonNode w : a.path("walks")) {
          buckets.add(w.path("bucket").asText());
        }
      }
      List<Object> out = new ArrayList<>();
      for (String key : buckets) {
        int slash = key.indexOf('/');
        Bucket b = new Bucket(Provider.parse(key.substring(0, slash)), key.substring(slash + 1));
        out.add(sum(b, answers));
      }
      return out;
    });
  }

  private CompletableFuture<MakeNCopiesStatus> status(Bucket b) {
    return ask().thenApply(answers -> {
      MakeNCopiesStatus s = sum(b, answers);
      if (s.targets().stream().allMatch(t -> t.state().equals("none"))) {
        throw new NoSuchJobException(idOf(b));
      }
      return s;
    });
  }

  private List<Node> targets() {
    return cluster.require().map().targets().values().stream().filter(t -> t.state().serving()).toList();
  }

  /** Every serving target's report, by target id; a target that did not answer maps to a node with "problem". */
  private CompletableFuture<Map<String, JsonNode>> ask() {
    Map<String, JsonNode> out = Collections.synchronizedMap(new TreeMap<>());
    List<CompletableFuture<Void>> calls = new ArrayList<>();
    for (Node t : targets()) {
      calls.add(client.get(t.url() + TARGET_PATH, JsonNode.class).handle((r, err) -> {
        out.put(t.id(), err == null ? r : com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode()
            .put("problem", "target " + t.id() + " did not answer: " + ControlClient.cause(err)));
        return null;
      }));
    }
    return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).thenApply(v -> out);
  }

  /** Sums the targets' walks of {@code b}; a target without one has state none (it has not started, or restarted). */
  static MakeNCopiesStatus sum(Bucket b, Map<String, JsonNode> answers) {
    List<MakeNCopiesStatus.Target> rows = new ArrayList<>();
    long examined = 0;
    long queued = 0;
    long depth = 0;
    int copies = 0;
    boolean running = false;
    boolean failed = false;
    for (Map.Entry<String, JsonNode> e : answers.entrySet()) {
      JsonNode a = e.getValue();
      if (a.hasNonNull("problem")) {
        failed = true;
        rows.add(new MakeNCopiesStatus.Target(e.getKey(), "unknown", 0, 0, 0, a.path("problem").asText()));
        continue;
      }
      long d = a.path("queueDepth").asLong();
      depth += d;
      JsonNode walk = null;
      for (JsonNode w : a.path("walks")) {
        if (w.path("bucket").asText().equals(b.key())) {
          walk = w;
        }
      }
      if (walk == null) {
        rows.add(new MakeNCopiesStatus.Target(e.getKey(), "none", 0, 0, d, null));
        continue;
      }
      boolean mine = walk.path("running").asBoolean() || d > 0;
      running |= mine;
      examined += walk.path("examined").asLong();
      queued += walk.path("queued").asLong();
      copies = Math.max(copies, walk.path("copies").asInt());
      rows.add(new MakeNCopiesStatus.Target(e.getKey(), mine ? "running" : "succeeded",
          walk.path("examined").asLong(), walk.path("queued").asLong(), d, null));
    }
    String state = failed ? "failed" : running ? "running" : "succeeded";
    return new MakeNCopiesStatus(idOf(b), KIND, b.toString(), state, copies, examined, queued, depth, rows);
  }
}
