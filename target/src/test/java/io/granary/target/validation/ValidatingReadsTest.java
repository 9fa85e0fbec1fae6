package io.granary.target.validation;

import static io.granary.target.mirror.MirrorFixture.content;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.Protection;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpDispatcher;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestFraming;
import io.granary.common.http.RequestHandler;
import io.granary.target.http.WarmValidation;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.mirror.MirrorFixture;
import io.granary.target.mirror.Mirroring;
import io.granary.target.storage.StoredObject;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.FileRegion;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ValidatingReads} behind the real dispatcher on an embedded channel (paranoid leak detection in the build),
 * with a real store and disk pool: an intact large object streams whole, byte-exact; a corrupt one is cut before its
 * last chunk (the connection closes short of Content-Length) and repaired; a corrupt small one with no copy is a
 * 500 before any byte; a corrupt small one with a copy is served anew, correct.
 */
class ValidatingReadsTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir
  java.nio.file.Path tmp;
  private MirrorFixture f;
  private Mirroring mirroring;
  private BoundedExecutor disk;
  private ValidationStats stats;
  private ValidatingReads reads;
  private EmbeddedChannel ch;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final AtomicInteger retries = new AtomicInteger();

  private void open(int copies) throws IOException {
    f = new MirrorFixture(tmp, 2, copies);
    mirroring = new Mirroring("t1", f.store, f::current, 1, 64);
    disk = new BoundedExecutor("disk-test", 2, 64);
    stats = new ValidationStats();
    reads = new ValidatingReads("t1", disk, new CopyVerifier("t1", f.store, mirroring, stats, MainCopyRebuild.NONE));
    ch = new EmbeddedChannel();
    ch.pipeline()
        .addLast("http", new HttpServerCodec())
        .addLast("framing", new RequestFraming())
        .addLast("dispatch", new HttpDispatcher(ex -> new Get(), "t1"));
  }

  @AfterEach
  void tearDown() throws IOException {
    if (ch != null) {
      ch.finishAndReleaseAll();
    }
    if (disk != null) {
      disk.close();
    }
    if (mirroring != null) {
      mirroring.close();
    }
    if (f != null) {
      f.close();
    }
  }

  /** A GET of "obj" served through validation; served anew (once) when validation asks. */
  private final class Get implements RequestHandler {
    private WarmValidation.Served served;

    @Override
    public void onRequest(HttpExchange ex) throws IOException {
      serve(ex, true);
    }

    private void serve(HttpExchange ex, boolean first) throws IOException {
      StoredObject obj = f.store.open(f.bucket, "obj");
      HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
      HttpUtil.setContentLength(head, obj.meta().size());
      served = reads.serve(ex, head, obj, null, f.bucket, "obj", !first ? null : () -> {
        retries.incrementAndGet();
        try {
          serve(ex, false);
        } catch (IOException e) {
          ex.sendError(e);
        }
      });
    }

    @Override
    public void onClientWritabilityChanged(HttpExchange ex, boolean writable) {
      if (served != null && writable) {
        served.clientWritable();
      }
    }

    @Override
    public void onClientClosed(HttpExchange ex) {
      if (served != null) {
        served.clientClosed();
      }
    }
  }

  /**
   * Sends a GET and runs the loop until the answer is complete (its Content-Length received) or the connection
   * closed; answers the raw bytes.
   */
  private byte[] get() throws IOException {
    ch.writeInbound(Unpooled.copiedBuffer("GET /obj HTTP/1.1\r\nHost: t\r\n\r\n", StandardCharsets.ISO_8859_1));
    await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> {
      ch.runPendingTasks();
      drain();
      return !ch.isOpen() || complete();
    });
    drain();
    return out.toByteArray();
  }

  /** Moves what the channel wrote into {@link #out}: buffers, and file regions (sendfile) copied the same way. */
  private void drain() throws IOException {
    for (Object o; (o = ch.readOutbound()) != null; ) {
      if (o instanceof FileRegion r) {
        WritableByteChannel sink = Channels.newChannel(out);
        while (r.transferred() < r.count()) {
          r.transferTo(sink, r.transferred());
        }
        r.release();
        continue;
      }
      ByteBuf b = (ByteBuf) o;
      byte[] bytes = new byte[b.readableBytes()];
      b.readBytes(bytes);
      b.release();
      out.writeBytes(bytes);
    }
  }

  private boolean complete() {
    byte[] raw = out.toByteArray();
    int headEnd = headEnd(raw);
    if (headEnd < 0) {
      return false;
    }
    Matcher m = Pattern.compile("(?i)content-length: (\\d+)").matcher(new String(raw, 0, headEnd,
        StandardCharsets.ISO_8859_1));
    return m.find() && raw.length - headEnd >= Long.parseLong(m.group(1));
  }

  private static int headEnd(byte[] raw) {
    String s = new String(raw, StandardCharsets.ISO_8859_1);
    int i = s.indexOf("\r\n\r\n");
    return i < 0 ? -1 : i + 4;
  }

  private static byte[] body(byte[] raw) {
    return Arrays.copyOfRange(raw, headEnd(raw), raw.length);
  }

  private void flip(long at) throws IOException {
    CopyVerifierTest.flip(f.locate("obj").file(), at);
  }

  @Test
  void applies_onlyWithTheSetting_andARecordedChecksum() throws IOException {
    open(1);
    ObjectMeta meta = f.put("obj", content(10, 5));
    BucketProps on = f.bucket.withProtection(new Protection(1, 0, 0, Protection.DEFAULT_EC_OBJ_SIZE_LIMIT, true));

    assertThat(reads.applies(f.bucket, meta)).as("without the setting: sendfile, unhashed").isFalse();
    assertThat(reads.applies(on, meta)).isTrue();
    assertThat(reads.applies(on, new ObjectMeta(10, meta.checksumType(), "", meta.mtime()))).isFalse();
    assertThat(WarmValidation.OFF.applies(on, meta)).isFalse();
  }

  @Test
  void intactLargeObject_streamsWhole_byteExact() throws IOException {
    open(1);
    byte[] body = content((3 << 20) + 17, 1);
    f.put("obj", body);

    byte[] raw = get();

    assertThat(new String(raw, 0, 15, StandardCharsets.ISO_8859_1)).isEqualTo("HTTP/1.1 200 OK");
    assertThat(body(raw)).isEqualTo(body);
    assertThat(ch.isOpen()).isTrue();
    assertThat(stats.getFailures()).isZero();
  }

  @Test
  void corruptLargeObject_isCutBeforeItsLastChunk_andChecked() throws IOException {
    open(1);
    byte[] body = content(3 << 20, 2);
    f.put("obj", body);
    flip(body.length / 2);

    byte[] raw = get();

    assertThat(ch.isOpen()).as("connection closed").isFalse();
    assertThat(body(raw).length).as("short of Content-Length").isLessThanOrEqualTo(body.length - ValidatingStream.CHUNK);
    await().atMost(WAIT).until(() -> stats.getFailures() == 1 && stats.unrepairable() == 1);
  }

  @Test
  void corruptSmallObject_withoutACopy_is500_beforeAnyByte() throws IOException {
    open(1);
    byte[] body = content(100_000, 3);
    f.put("obj", body);
    flip(99_999);

    String raw = new String(get(), StandardCharsets.ISO_8859_1);

    assertThat(raw).startsWith("HTTP/1.1 500").contains("does not match its xxhash64 checksum");
    assertThat(retries).hasValue(0);
    assertThat(stats.unrepairable()).isEqualTo(1);
  }

  @Test
  void corruptSmallObject_withAMirrorCopy_isRepaired_andServedAnew() throws IOException {
    open(2);
    byte[] body = content(100_000, 4);
    f.put("obj", body);
    await().atMost(WAIT).until(() -> f.holders("obj").size() == 2);
    flip(0);

    byte[] raw = get();

    assertThat(new String(raw, 0, 15, StandardCharsets.ISO_8859_1)).isEqualTo("HTTP/1.1 200 OK");
    assertThat(body(raw)).isEqualTo(body);
    assertThat(retries).hasValue(1);
    assertThat(stats.mirrorRepairs()).isEqualTo(1);
    assertThat(f.read("obj")).isEqualTo(body);
  }
}
