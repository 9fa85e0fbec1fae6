package io.granary.backend.gcs;

import static io.granary.backend.BackendException.Kind.CHANGED;
import static io.granary.backend.BackendException.Kind.INVALID_RANGE;
import static io.granary.backend.BackendException.Kind.NOT_FOUND;
import static io.granary.backend.BackendException.Kind.TRUNCATED;
import static io.granary.backend.BackendException.Kind.UNAVAILABLE;
import static org.assertj.core.api.Assertions.assertThat;

import io.granary.backend.Backend;
import io.granary.backend.BackendConfig;
import io.granary.backend.BackendException;
import io.granary.backend.Backends;
import io.granary.backend.PutAttributes;
import io.granary.backend.RemoteObject;
import io.granary.backend.RemotePage;
import io.granary.backend.RemoteRead;
import io.granary.backend.TestData;
import io.granary.clustermap.bucket.Provider;
import io.granary.testkit.FakeGcsServer;
import io.granary.testkit.FaultProxy;
import io.granary.testkit.FaultProxy.Fault;
import io.granary.testkit.FaultProxy.Recorded;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link GcsBackend} with the real google-cloud-storage client against FakeGcsServer, directly and through a FaultProxy. */
class GcsBackendIT {
  static final String BUCKET = "granary-it";

  @TempDir
  static Path tmp;
  static FakeGcsServer server;
  static FaultProxy proxy;
  static Backend direct;
  static Backend proxied;
  static Backend impatient;

  @BeforeAll
  static void start() throws Exception {
    server = FakeGcsServer.start(Files.createDirectories(tmp.resolve("gcs")));
    server.createBucket(BUCKET);
    proxy = FaultProxy.start(server.endpoint());
    direct = Backends.open(config(server.endpoint(), Duration.ofSeconds(10)));
    proxied = Backends.open(config(proxy.endpoint(), Duration.ofSeconds(10)));
    impatient = Backends.open(config(proxy.endpoint(), Duration.ofSeconds(1)));
  }

  static BackendConfig config(URI endpoint, Duration readTimeout) {
    return new BackendConfig(Provider.GCP, endpoint, null, false, null, null, true, Duration.ofSeconds(2),
        readTimeout, 3, 8);
  }

  @AfterAll
  static void stop() {
    for (AutoCloseable c : new AutoCloseable[] {direct, proxied, impatient, proxy, server}) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception ignored) {
        // best effort
      }
    }
  }

  @AfterEach
  void clearFaults() {
    proxy.clearFaults();
  }

  static RemoteObject seed(String key, byte[] content) throws Exception {
    Path f = TestData.file(tmp.resolve("seed-" + key.replace('/', '_')), content);
    return direct.put(BUCKET, key, f, new PutAttributes(content.length, TestData.md5Hex(content), null, Map.of()));
  }

  static Predicate<Recorded> media(String key) {
    return r -> r.method().equals("GET") && r.pathAndQuery().contains("/o/" + key)
        && r.pathAndQuery().contains("alt=media");
  }

  static Predicate<Recorded> metadata(String key) {
    return r -> r.method().equals("GET") && r.pathAndQuery().contains("/o/" + key)
        && !r.pathAndQuery().contains("alt=media");
  }

  @Test
  void put_small_thenHead_reportsGenerationMd5Crc32cTypeAndMeta() throws Exception {
    byte[] content = TestData.bytes(10_000, 1);
    Path f = TestData.file(tmp.resolve("small"), content);
    RemoteObject put = direct.put(BUCKET, "small", f,
        new PutAttributes(content.length, TestData.md5Hex(content), "application/x-test", Map.of("origin", "it")));
    CRC32C crc = new CRC32C();
    crc.update(content);

    RemoteObject head = direct.head(BUCKET, "small");
    assertThat(head.key()).isEqualTo("small");
    assertThat(head.size()).isEqualTo(10_000);
    assertThat(head.version()).isEqualTo(put.version()).matches("[0-9]+");
    assertThat(head.etag()).isNotNull().isEqualTo(put.etag());
    assertThat(head.md5()).isEqualTo(TestData.md5Hex(content));
    assertThat(head.crc32c()).isEqualTo(String.format("%08x", crc.getValue()));
    assertThat(head.contentType()).isEqualTo("application/x-test");
    assertThat(head.userMeta()).containsEntry("origin", "it");
    assertThat(head.lastModified()).isPositive();
  }

  @Test
  void read_wholeObject_intoDirectAndHeapBuffers() throws Exception {
    byte[] content = TestData.bytes(300_000, 3);
    seed("whole", content);
    try (RemoteRead r = direct.read(BUCKET, "whole", 0, -1, null)) {
      assertThat(r.length()).isEqualTo(content.length);
      assertThat(r.object().size()).isEqualTo(content.length);
      assertThat(TestData.readAll(r, true)).isEqualTo(content);
      assertThat(r.read(ByteBuffer.allocate(10))).isEqualTo(-1);
    }
    try (RemoteRead r = direct.read(BUCKET, "whole", 0, -1, null)) {
      assertThat(TestData.readAll(r, false)).isEqualTo(content);
    }
  }

  @Test
  void read_rangeWithExpected_needsNoHead() throws Exception {
    byte[] content = TestData.bytes(200_000, 4);
    RemoteObject obj = seed("range", content);
    proxy.resetCounts();
    try (RemoteRead r = proxied.read(BUCKET, "range", 1000, 70_000, obj)) {
      assertThat(r.offset()).isEqualTo(1000);
      assertThat(r.length()).isEqualTo(70_000);
      assertThat(r.object().size()).isEqualTo(200_000);
      assertThat(TestData.readAll(r, true)).isEqualTo(Arrays.copyOfRange(content, 1000, 71_000));
    }
    assertThat(proxy.count(metadata("range"))).isZero();
    try (RemoteRead r = direct.read(BUCKET, "range", 199_990, 100, null)) {
      assertThat(r.length()).isEqualTo(10);
      assertThat(TestData.readAll(r, false)).isEqualTo(Arrays.copyOfRange(content, 199_990, 200_000));
    }
    assertKind(() -> direct.read(BUCKET, "range", 300_000, 10, obj), INVALID_RANGE);
  }

  @Test
  void read_expectedVersion_afterOverwrite_throwsChanged() throws Exception {
    RemoteObject v1 = seed("changing", TestData.bytes(5000, 6));
    RemoteObject v2 = seed("changing", TestData.bytes(5000, 7));
    assertThat(v2.version()).isNotEqualTo(v1.version());
    assertKind(() -> direct.read(BUCKET, "changing", 0, 1000, v1), CHANGED);
    try (RemoteRead r = direct.read(BUCKET, "changing", 1000, 1000, v2)) {
      assertThat(TestData.readAll(r, true)).hasSize(1000);
    }
  }

  @Test
  void missingKey_throwsNotFound() {
    assertKind(() -> direct.head(BUCKET, "no-such-key"), NOT_FOUND);
    assertKind(() -> direct.read(BUCKET, "no-such-key", 0, -1, null), NOT_FOUND);
  }

  @Test
  void list_pagesWithPrefixDelimiterStartAfterAndToken() throws Exception {
    for (String k : List.of("list/a/1", "list/a/2", "list/b/1", "list/c", "list/d", "list/e", "other")) {
      server.putObject(BUCKET, k, k.getBytes(java.nio.charset.StandardCharsets.UTF_8), "text/plain");
    }
    RemotePage rolled = direct.list(BUCKET, "list/", "/", null, null, 1000);
    assertThat(rolled.objects()).extracting(RemoteObject::key).containsExactly("list/c", "list/d", "list/e");
    assertThat(rolled.commonPrefixes()).containsExactly("list/a/", "list/b/");
    assertThat(rolled.nextToken()).isNull();
    assertThat(rolled.objects().get(0).size()).isEqualTo("list/c".length());
    assertThat(rolled.objects().get(0).version()).isNotNull();

    List<String> keys = new ArrayList<>();
    String token = null;
    int pages = 0;
    do {
      RemotePage p = direct.list(BUCKET, "list/", null, null, token, 2);
      assertThat(p.objects().size()).isLessThanOrEqualTo(2);
      p.objects().forEach(o -> keys.add(o.key()));
      token = p.nextToken();
      pages++;
    } while (token != null && pages < 10);
    assertThat(keys).containsExactly("list/a/1", "list/a/2", "list/b/1", "list/c", "list/d", "list/e");
    assertThat(pages).isBetween(3, 4);

    RemotePage after = direct.list(BUCKET, "list/", null, "list/c", null, 1000);
    assertThat(after.objects()).extracting(RemoteObject::key).containsExactly("list/d", "list/e");
  }

  @Test
  void put_large_readsBackByteExact() throws Exception {
    long size = (65L << 20) + 123;
    Path f = TestData.file(tmp.resolve("large"), size, 8);
    RemoteObject put = direct.put(BUCKET, "large", f,
        new PutAttributes(size, null, "application/octet-stream", Map.of("kind", "large")));
    assertThat(put.size()).isEqualTo(size);
    RemoteObject head = direct.head(BUCKET, "large");
    assertThat(head.size()).isEqualTo(size);
    assertThat(head.userMeta()).containsEntry("kind", "large");
    try (RemoteRead r = direct.read(BUCKET, "large", 0, -1, head)) {
      assertThat(TestData.sha256(r)).isEqualTo(TestData.sha256(f));
    }
    Files.delete(f);
    direct.delete(BUCKET, "large");
  }

  @Test
  void delete_removesObject_andAbsentKeyIsFine() throws Exception {
    seed("doomed", TestData.bytes(10, 9));
    direct.delete(BUCKET, "doomed");
    assertKind(() -> direct.head(BUCKET, "doomed"), NOT_FOUND);
    direct.delete(BUCKET, "doomed");
  }

  @Test
  void read_after503Twice_isRetriedAndSucceeds() throws Exception {
    byte[] content = TestData.bytes(20_000, 10);
    RemoteObject obj = seed("flaky", content);
    proxy.resetCounts();
    proxy.inject(media("flaky"), new Fault.Status(503), 2);
    try (RemoteRead r = proxied.read(BUCKET, "flaky", 0, -1, obj)) {
      assertThat(TestData.readAll(r, true)).isEqualTo(content);
    }
    assertThat(proxy.count(media("flaky"))).isEqualTo(3);
  }

  @Test
  void head_503Always_throwsUnavailableAfterMaxAttempts() throws Exception {
    seed("down", TestData.bytes(100, 11));
    proxy.resetCounts();
    proxy.inject(metadata("down"), new Fault.Status(503), -1);
    BackendException e = assertKind(() -> proxied.head(BUCKET, "down"), UNAVAILABLE);
    assertThat(e.remoteStatus()).isEqualTo(503);
    assertThat(proxy.count(metadata("down"))).isEqualTo(3);
  }

  @Test
  void read_truncatedBodyEveryTime_throwsTruncatedNeverCleanEof() throws Exception {
    byte[] content = TestData.bytes(200_000, 12);
    RemoteObject obj = seed("cut", content);
    proxy.inject(media("cut"), new Fault.Truncate(0), -1);
    assertKind(() -> {
      try (RemoteRead r = proxied.read(BUCKET, "cut", 0, -1, obj)) {
        return TestData.readAll(r, true);
      }
    }, TRUNCATED);
  }

  @Test
  void read_truncatedOnce_isResumedOrReported() throws Exception {
    byte[] content = TestData.bytes(200_000, 13);
    RemoteObject obj = seed("cut-once", content);
    proxy.inject(media("cut-once"), new Fault.Truncate(70_000), 1);
    try (RemoteRead r = proxied.read(BUCKET, "cut-once", 0, -1, obj)) {
      // The library may resume from where the body broke; what it must never do is end early and cleanly.
      assertThat(TestData.readAll(r, true)).isEqualTo(content);
    } catch (BackendException e) {
      assertThat(e.kind()).isEqualTo(TRUNCATED);
    }
  }

  @Test
  void read_stallMidBodyEveryTime_isResumedOrFailsWithinBound() throws Exception {
    byte[] content = TestData.bytes(300_000, 14);
    RemoteObject obj = seed("slow", content);
    proxy.resetCounts();
    proxy.inject(media("slow"), new Fault.Stall(Duration.ofSeconds(10), 100_000), -1);
    long t0 = System.nanoTime();
    try (RemoteRead r = impatient.read(BUCKET, "slow", 0, -1, obj)) {
      // The library resumes a broken download from where it broke (generation pinned), so progress wins.
      assertThat(TestData.readAll(r, true)).isEqualTo(content);
    } catch (BackendException e) {
      assertThat(e.kind()).as(e.getMessage()).isIn(UNAVAILABLE, TRUNCATED);
    }
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(15));
    assertThat(proxy.count(media("slow"))).isGreaterThan(1);
  }

  @Test
  void read_stallBeforeEveryAnswer_throwsUnavailableWithinBound() throws Exception {
    RemoteObject obj = seed("silent", TestData.bytes(1000, 16));
    proxy.resetCounts();
    proxy.inject(media("silent"), new Fault.Stall(Duration.ofSeconds(10), 0), -1);
    long t0 = System.nanoTime();
    BackendException e = assertKind(() -> impatient.read(BUCKET, "silent", 0, -1, obj), UNAVAILABLE);
    assertThat(e.remoteStatus()).isZero();
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
    assertThat(proxy.count(media("silent"))).isEqualTo(3);
  }

  @Test
  void read_corruptedByte_passesThroughUnverified() throws Exception {
    byte[] content = TestData.bytes(100_000, 15);
    RemoteObject obj = seed("rotten", content);
    proxy.inject(media("rotten"), new Fault.Corrupt(12_345), 1);
    byte[] got;
    try (RemoteRead r = proxied.read(BUCKET, "rotten", 0, -1, obj)) {
      got = TestData.readAll(r, true);
    }
    assertThat(got).isNotEqualTo(content);
    got[12_345] = content[12_345];
    assertThat(got).isEqualTo(content);
  }

  interface Call {
    Object run() throws Exception;
  }

  static BackendException assertKind(Call call, BackendException.Kind kind) {
    try {
      call.run();
    } catch (BackendException e) {
      assertThat(e.kind()).as("kind of %s", e.getMessage()).isEqualTo(kind);
      return e;
    } catch (Exception e) {
      throw new AssertionError("expected BackendException " + kind + ", got " + e, e);
    }
    throw new AssertionError("expected BackendException " + kind + ", got no exception");
  }
}
