package io.granary.target.ec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeRole;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketMetadata;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpDispatcher;
import io.granary.common.http.RequestFraming;
import io.granary.common.membership.ClusterMetadata;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.MetadataFiles;
import io.granary.target.checksum.ContentHasher;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.ObjectStore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SliceRoutes} behind the real codec and dispatcher on an embedded channel, with a real store and disk pool
 * (paranoid leak detection, as every unit test runs): a slice is stored only when its bytes match its record, and a
 * missing or bad record, a body of another length or another bucket incarnation is a 4xx that leaves nothing.
 */
class SliceRoutesTest {
  private static final String UUID = "c0ffee00-0000-4000-8000-000000000004";
  private static final BucketProps BUCKET = new BucketProps(Bucket.local("coded"), "b1d", ChecksumType.XXHASH64,
      Instant.EPOCH);
  private static final byte[] SLICE = "the bytes of one slice".getBytes(StandardCharsets.UTF_8);

  @TempDir
  Path dir;
  private ObjectStore store;
  private SliceStore slices;
  private BoundedExecutor disk;
  private SliceRoutes routes;
  private final java.util.concurrent.atomic.AtomicInteger audits = new java.util.concurrent.atomic.AtomicInteger();
  private volatile String auditedHolder;
  private final List<EmbeddedChannel> channels = new ArrayList<>();
  private final List<ByteBuf> sent = new ArrayList<>();

  @BeforeEach
  void setUp() throws IOException {
    store = ObjectStore.open("t1", List.of(Mountpath.open(dir.resolve("mp1"))), 0);
    slices = new SliceStore("t1", store);
    disk = new BoundedExecutor("disk-test", 2, 64);
    ClusterMetadataHolder cluster = new ClusterMetadataHolder("t1", new MetadataFiles(List.of(dir.resolve("md"))));
    ClusterMap map = ClusterMap.bootstrap(UUID, new Node("p1", NodeRole.PROXY, "http://127.0.0.1:1",
        NodeState.ACTIVE, 1), Instant.EPOCH).withNode(new Node("t1", NodeRole.TARGET, "http://127.0.0.1:2",
        NodeState.ACTIVE, 1));
    cluster.apply(new ClusterMetadata(map, BucketMetadata.empty(UUID).with(BUCKET)));
    routes = new SliceRoutes(cluster, slices, store, disk, () -> Map.of("ok", true), holder -> {
      audits.incrementAndGet();
      auditedHolder = holder;
    });
  }

  @AfterEach
  void tearDown() throws IOException {
    channels.forEach(EmbeddedChannel::finishAndReleaseAll);
    assertThat(sent).allSatisfy(b -> assertThat(b.refCnt()).as("a chunk the test sent").isZero());
    disk.close();
    store.close();
  }

  private static String xxh(byte[] b) {
    ContentHasher h = ContentHasher.of(ChecksumType.XXHASH64);
    h.update(ByteBuffer.wrap(b));
    return h.hex();
  }

  private static SliceRecord record(String bucketId, String sum) {
    return record(bucketId, sum, 2);
  }

  private static SliceRecord record(String bucketId, String sum, int index) {
    ObjectMeta m = new ObjectMeta(100, ChecksumType.XXHASH64, "0123456789abcdef", 42);
    return new SliceRecord("ais", "coded", bucketId, "a/b", index, 4, 2, 1024, 100, SliceRecord.versionOf(m), 42,
        SliceRecord.encodeMeta(m), SLICE.length, sum, 1);
  }

  private static String header(SliceRecord r) {
    return "\r\n" + SliceRoutes.RECORD_HEADER + ": " + Base64.getEncoder().encodeToString(r.encode());
  }

  /**
   * Sends a raw request on a new connection (one refused before its body may be closed) and waits, running the
   * loop's tasks, for the answer, decoded by a client codec.
   */
  private FullHttpResponse exchange(String head, byte[] body) {
    EmbeddedChannel ch = new EmbeddedChannel();
    channels.add(ch);
    ch.pipeline()
        .addLast("http", new HttpServerCodec())
        .addLast("framing", new RequestFraming())
        .addLast("dispatch", new HttpDispatcher(routes, "t1"));
    ByteBuf h = Unpooled.copiedBuffer(head, StandardCharsets.ISO_8859_1);
    sent.add(h);
    ch.writeInbound(h);
    if (body.length > 0) {
      ByteBuf b = Unpooled.copiedBuffer(body);
      sent.add(b);
      ch.writeInbound(b);
    }
    EmbeddedChannel client = new EmbeddedChannel(new HttpClientCodec(), new HttpObjectAggregator(1 << 20));
    client.writeOutbound(Unpooled.EMPTY_BUFFER); // the codec pairs each answer with a request it saw go out
    List<Object> answer = new ArrayList<>();
    await().atMost(Duration.ofSeconds(10)).until(() -> {
      ch.runPendingTasks();
      Object o;
      while ((o = ch.readOutbound()) != null) {
        answer.add(o);
      }
      return !answer.isEmpty();
    });
    client.writeInbound(answer.toArray());
    FullHttpResponse r = client.readInbound();
    client.finishAndReleaseAll();
    return r;
  }

  private FullHttpResponse put(String extraHeaders, byte[] body, long declared) {
    return exchange("PUT " + SliceRoutes.SLICES + "coded/a%2Fb?provider=ais HTTP/1.1\r\nHost: t\r\nContent-Length: "
        + declared + extraHeaders + "\r\n\r\n", body);
  }

  private static JsonNode json(FullHttpResponse r) throws IOException {
    try {
      return ClusterJson.mapper().readTree(r.content().toString(StandardCharsets.UTF_8));
    } finally {
      r.release();
    }
  }

  private long workFiles() throws IOException {
    try (Stream<Path> s = Files.list(dir.resolve("mp1").resolve("work"))) {
      return s.count();
    }
  }

  @Test
  void verifiedSlice_isStored_andListed() throws Exception {
    FullHttpResponse r = put(header(record("b1d", xxh(SLICE))), SLICE, SLICE.length);
    assertThat(r.status().code()).isEqualTo(200);
    r.release();
    assertThat(slices.held(BUCKET, "a/b")).hasSize(1);
    assertThat(Files.readAllBytes(slices.held(BUCKET, "a/b").get(0).file())).isEqualTo(SLICE);

    JsonNode listed = json(exchange("GET " + SliceRoutes.RECORDS + "coded/a%2Fb?provider=ais HTTP/1.1\r\nHost: t"
        + "\r\n\r\n", new byte[0]));
    assertThat(listed.path("records")).hasSize(1);
    assertThat(listed.path("records").get(0).path("index").asInt()).isEqualTo(2);
    assertThat(workFiles()).isZero();
  }

  @Test
  void removeKeepingOneIndex_dropsTheOtherSlicesOfThatVersion_keepIndexAloneIsA400() throws Exception {
    for (int k : new int[] {1, 3}) {
      FullHttpResponse r = put(header(record("b1d", xxh(SLICE), k)), SLICE, SLICE.length);
      assertThat(r.status().code()).isEqualTo(200);
      r.release();
    }
    String version = record("b1d", xxh(SLICE)).version();
    String base = "DELETE " + SliceRoutes.SLICES + "coded/a%2Fb?provider=ais";
    FullHttpResponse bad = exchange(base + "&keepIndex=3 HTTP/1.1\r\nHost: t\r\n\r\n", new byte[0]);
    assertThat(bad.status().code()).isEqualTo(400);
    bad.release();
    assertThat(slices.held(BUCKET, "a/b")).as("a refused delete removes nothing").hasSize(2);

    JsonNode removed = json(exchange(base + "&keep=" + io.granary.common.http.RequestPath.encodePath(version)
        + "&keepIndex=3 HTTP/1.1\r\nHost: t\r\n\r\n", new byte[0]));
    assertThat(removed.path("removed").asInt()).isEqualTo(1);
    assertThat(slices.held(BUCKET, "a/b")).singleElement().satisfies(h -> assertThat(h.record().index())
        .isEqualTo(3));
  }

  @Test
  void badChecksum_isA400_andLeavesNothing() throws Exception {
    JsonNode err = json(put(header(record("b1d", "0000000000000000")), SLICE, SLICE.length));
    assertThat(err.path("code").asText()).isEqualTo("BadChecksum");
    assertThat(slices.held(BUCKET, "a/b")).isEmpty();
    assertThat(workFiles()).isZero();
  }

  @Test
  void missingRecord_otherLength_otherIncarnation_are4xx_andLeaveNothing() throws Exception {
    FullHttpResponse none = put("", SLICE, SLICE.length);
    assertThat(none.status().code()).isEqualTo(400);
    none.release();
    FullHttpResponse garbage = put("\r\n" + SliceRoutes.RECORD_HEADER + ": not-base64!", SLICE, SLICE.length);
    assertThat(garbage.status().code()).isEqualTo(400);
    garbage.release();
    byte[] longer = "the bytes of one slice, and more".getBytes(StandardCharsets.UTF_8);
    FullHttpResponse length = put(header(record("b1d", xxh(SLICE))), longer, longer.length);
    assertThat(length.status().code()).isEqualTo(400);
    length.release();
    FullHttpResponse other = put(header(record("other-id", xxh(SLICE))), SLICE, SLICE.length);
    assertThat(other.status().code()).isEqualTo(400);
    other.release();
    assertThat(slices.held(BUCKET, "a/b")).isEmpty();
    assertThat(workFiles()).isZero();
  }

  private FullHttpResponse held(String json) {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    return exchange("POST " + SliceRoutes.HELD + " HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
        + "Content-Length: " + body.length + "\r\n\r\n", body);
  }

  private static String query(String bid, String version, int... indexes) {
    StringBuilder b = new StringBuilder("{\"provider\":\"ais\",\"bucket\":\"coded\",\"bid\":\"" + bid
        + "\",\"slices\":[");
    for (int i = 0; i < indexes.length; i++) {
      b.append(i == 0 ? "" : ",").append("{\"name\":\"a/b\",\"version\":\"").append(version)
          .append("\",\"index\":").append(indexes[i]).append('}');
    }
    return b.append("]}").toString();
  }

  @Test
  void heldQuery_namesTheSlicesNotHeldWhole_aTruncatedOrMissingFileIsNotHeld() throws Exception {
    FullHttpResponse r = put(header(record("b1d", xxh(SLICE))), SLICE, SLICE.length);
    assertThat(r.status().code()).isEqualTo(200);
    r.release();
    String version = record("b1d", xxh(SLICE)).version();

    JsonNode answer = json(held(query("b1d", version, 2, 3, SliceRecord.REPLICA)));
    assertThat(answer.path("missing")).extracting(JsonNode::asInt).containsExactly(1, 2);
    JsonNode otherVersion = json(held(query("b1d", "1-ffff", 2)));
    assertThat(otherVersion.path("missing")).extracting(JsonNode::asInt).containsExactly(0);

    Path file = slices.held(BUCKET, "a/b").get(0).file();
    Files.write(file, new byte[3]);
    JsonNode truncated = json(held(query("b1d", version, 2)));
    assertThat(truncated.path("missing")).extracting(JsonNode::asInt).containsExactly(0);
    Files.delete(file);
    JsonNode gone = json(held(query("b1d", version, 2)));
    assertThat(gone.path("missing")).extracting(JsonNode::asInt).containsExactly(0);
  }

  @Test
  void malformedHeldQueries_are4xx_andChangeNothing() throws Exception {
    FullHttpResponse r = put(header(record("b1d", xxh(SLICE))), SLICE, SLICE.length);
    r.release();
    String version = record("b1d", xxh(SLICE)).version();
    int[] tooMany = new int[SliceRoutes.MAX_HELD_QUERY + 1];
    java.util.Arrays.fill(tooMany, 2);
    Map<String, Integer> bad = new java.util.LinkedHashMap<>();
    bad.put("", 400);
    bad.put("{\"provider\":", 400);
    bad.put("[1,2]", 400);
    bad.put(query("b1d", version, tooMany), 400);
    bad.put(query("b1d", version, -2), 400);
    bad.put("{\"provider\":\"ais\",\"bucket\":\"coded\",\"bid\":\"b1d\",\"slices\":[{\"name\":\"a/b\","
        + "\"index\":2}]}", 400);
    bad.put(query("b1d", version, 2).replace("\"ais\"", "\"ftp\""), 400);
    bad.put(query("b1d", version, 2).replace("\"coded\"", "\"nobucket\""), 404);
    bad.put(query("other-id", version, 2), 409);
    for (var e : bad.entrySet()) {
      FullHttpResponse answer = held(e.getKey());
      assertThat(answer.status().code()).as(e.getKey().length() > 200 ? "a query of too many slices" : e.getKey())
          .isEqualTo(e.getValue());
      answer.release();
    }
    assertThat(slices.held(BUCKET, "a/b")).hasSize(1);
    assertThat(audits).hasValue(0);
  }

  @Test
  void auditRequest_isAccepted_andStartsAnAudit() throws Exception {
    FullHttpResponse r = exchange("POST " + SliceRoutes.AUDIT + "?holder=t9 HTTP/1.1\r\nHost: t\r\n"
        + "Content-Length: 0\r\n\r\n", new byte[0]);
    assertThat(r.status().code()).isEqualTo(202);
    r.release();
    assertThat(audits).hasValue(1);
    assertThat(auditedHolder).isEqualTo("t9");
  }
}
