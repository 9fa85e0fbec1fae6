package io.granary.target.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.common.http.HttpDispatcher;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestFraming;
import io.granary.common.http.RequestHandler;
import io.granary.target.meta.ObjectMeta;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link OffLoopWrites} behind the real dispatcher on an embedded channel, with a real store, and a disk pool the test
 * runs by hand: nothing is written on the loop, reading pauses above the limit and resumes once the disk caught up,
 * the object is committed byte-exact, an abort leaves no work file, and every chunk is released.
 */
class OffLoopWritesTest {
  private static final int SIZE = 6 << 20;

  @TempDir
  Path tmp;
  private MountpathFixture f;
  private final ArrayDeque<Runnable> disk = new ArrayDeque<>();
  private final List<ByteBuf> sent = new ArrayList<>();
  private final AtomicReference<ObjectMeta> committed = new AtomicReference<>();
  private EmbeddedChannel ch;

  @BeforeEach
  void setUp() throws IOException {
    f = new MountpathFixture(tmp, "mp1");
    ch = new EmbeddedChannel();
    ch.pipeline()
        .addLast("http", new HttpServerCodec())
        .addLast("framing", new RequestFraming())
        .addLast("dispatch", new HttpDispatcher(ex -> new Put(), "t1"));
  }

  @AfterEach
  void tearDown() throws IOException {
    ch.finishAndReleaseAll();
    assertThat(sent).allSatisfy(b -> assertThat(b.refCnt()).as("a chunk the test sent").isZero());
    f.close();
  }

  /** A PUT that writes through {@link OffLoopWrites} and commits on the test's "disk pool". */
  private final class Put implements RequestHandler {
    private OffLoopWrites<PutOperation> writes;

    @Override
    public void onRequest(HttpExchange ex) throws IOException {
      writes = new OffLoopWrites<>(f.store.beginPut(MountpathFixture.BUCKET, "obj",
          PutOptions.nativePut(SIZE, List.of())), disk::add, ex);
    }

    @Override
    public void onContent(HttpExchange ex, HttpContent chunk) {
      writes.write(chunk.content());
    }

    @Override
    public void onEnd(HttpExchange ex) {
      writes.end().whenComplete((op, err) -> {
        try {
          committed.set(op.finish());
          ex.sendJson(HttpResponseStatus.OK, Map.of("ok", true));
        } catch (IOException e) {
          ex.sendError(e);
        }
      });
    }

    @Override
    public void onAbort(HttpExchange ex, Throwable cause) {
      writes.abort();
    }
  }

  private void send(String raw) {
    send(Unpooled.copiedBuffer(raw, StandardCharsets.ISO_8859_1));
  }

  private void send(ByteBuf b) {
    sent.add(b);
    ch.writeInbound(b);
  }

  private static byte[] content() {
    byte[] b = new byte[SIZE];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) (i * 31 + (i >>> 12));
    }
    return b;
  }

  private void runDisk() {
    while (!disk.isEmpty()) {
      disk.poll().run();
    }
    ch.runPendingTasks(); // what the disk tasks asked of the loop (resume reading)
  }

  private long workFiles() throws IOException {
    try (Stream<Path> s = Files.walk(f.mountpath("mp1").workDir())) {
      return s.filter(Files::isRegularFile).count();
    }
  }

  @Test
  void bodyWrittenOffTheLoop_readingPausesAboveTheLimit_andTheObjectIsCommittedByteExact() throws IOException {
    byte[] content = content();
    send("PUT /o HTTP/1.1\r\nHost: t\r\nContent-Length: " + SIZE + "\r\n\r\n");
    int half = 5 << 20; // above the pause limit, nothing written yet
    for (int at = 0; at < half; at += 64 << 10) {
      send(Unpooled.wrappedBuffer(content, at, 64 << 10));
    }
    assertThat(disk).as("writes wait for the disk pool").isNotEmpty();
    assertThat(ch.config().isAutoRead()).as("reading paused with more than 4 MiB waiting").isFalse();

    runDisk();
    assertThat(ch.config().isAutoRead()).as("resumed once written").isTrue();

    for (int at = half; at < SIZE; at += 64 << 10) {
      send(Unpooled.wrappedBuffer(content, at, 64 << 10));
    }
    assertThat(committed.get()).as("not before the last write").isNull();
    runDisk();

    assertThat(committed.get()).isNotNull();
    assertThat(committed.get().size()).isEqualTo(SIZE);
    assertThat(f.read("obj")).isEqualTo(content);
    assertThat(workFiles()).isZero();
  }

  @Test
  void abortedBody_leavesNoWorkFileAndNoObject() throws IOException {
    byte[] content = content();
    send("PUT /o HTTP/1.1\r\nHost: t\r\nContent-Length: " + SIZE + "\r\n\r\n");
    send(Unpooled.wrappedBuffer(content, 0, 1 << 20));
    runDisk();
    send(Unpooled.wrappedBuffer(content, 1 << 20, 1 << 20)); // queued, not yet written
    assertThat(workFiles()).isOne();

    ch.close(); // the sender went away mid-body
    runDisk();

    assertThat(workFiles()).isZero();
    assertThat(f.store.stat(MountpathFixture.BUCKET, "obj")).isNull();
    assertThat(committed.get()).isNull();
  }
}
