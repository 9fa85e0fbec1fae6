package io.granary.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.ReadChannel;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** FaultProxy between the real google-cloud-storage client and FakeGcsServer. */
class FaultProxyGcsTest {
  @TempDir
  static Path dir;
  static FakeGcsServer gcs;
  static FaultProxy proxy;
  static Storage storage;
  static final byte[] DATA = GcsClients.random(1 << 20, 21);
  static final Predicate<FaultProxy.Recorded> MEDIA =
      r -> r.pathAndQuery().startsWith("/download/storage/v1/b/bkt/o/obj?") && r.pathAndQuery().contains("alt=media");

  @BeforeAll
  static void start() throws Exception {
    gcs = FakeGcsServer.start(dir);
    gcs.createBucket("bkt");
    proxy = FaultProxy.start(gcs.endpoint());
    storage = GcsClients.fastRetrying(proxy.endpoint());
    gcs.putObject("bkt", "obj", DATA, "application/octet-stream");
  }

  @AfterAll
  static void stop() throws Exception {
    storage.close();
    proxy.close();
    gcs.close();
  }

  @AfterEach
  void reset() {
    proxy.clearFaults();
    proxy.resetCounts();
  }

  @Test
  void passThrough_uploadAndDownload() {
    storage.create(BlobInfo.newBuilder("bkt", "up").build(), new byte[] {1, 2, 3});
    assertThat(storage.readAllBytes(BlobId.of("bkt", "up"))).containsExactly(1, 2, 3);
    assertThat(proxy.count(r -> r.method().equals("POST"))).isEqualTo(1);
  }

  @Test
  void status503_onDownload_isRetried() {
    long served = gcs.downloads("bkt", "obj");
    proxy.inject(MEDIA, new FaultProxy.Fault.Status(503), 2);
    assertThat(storage.readAllBytes(BlobId.of("bkt", "obj"))).isEqualTo(DATA);
    assertThat(proxy.count(MEDIA)).isEqualTo(3);
    assertThat(gcs.downloads("bkt", "obj") - served).isEqualTo(1);
  }

  @Test
  void status503_onMetadata_forever_surfacesAsStorageException() {
    proxy.inject(r -> r.pathAndQuery().startsWith("/storage/v1/b/bkt/o/nope"), new FaultProxy.Fault.Status(503), -1);
    proxy.inject(r -> true, new FaultProxy.Fault.Status(404), 0); // times 0: never applies
    assertThatThrownBy(() -> storage.get(BlobId.of("bkt", "nope"),
        Storage.BlobGetOption.fields(Storage.BlobField.NAME)))
        .isInstanceOfSatisfying(com.google.cloud.storage.StorageException.class,
            e -> assertThat(e.getCode()).isEqualTo(503));
    assertThat(proxy.count(r -> r.pathAndQuery().startsWith("/storage/v1/b/bkt/o/nope"))).isEqualTo(3);
  }

  @Test
  void truncate_readerResumesWithRange() throws Exception {
    proxy.inject(MEDIA, new FaultProxy.Fault.Truncate(300_000), 1);
    try (ReadChannel reader = storage.reader(BlobId.of("bkt", "obj"))) {
      assertThat(FakeGcsServerTest.readAll(reader)).isEqualTo(DATA);
    }
    assertThat(proxy.count(MEDIA)).isEqualTo(2);
    assertThat(proxy.requests()).filteredOn(MEDIA).last().satisfies(r ->
        assertThat(r.range()).startsWith("bytes=").doesNotStartWith("bytes=0-"));
  }

  @Test
  void corrupt_changesTheBytesTheClientSees() throws Exception {
    proxy.inject(MEDIA, new FaultProxy.Fault.Corrupt(123), 1);
    byte[] got;
    try (ReadChannel reader = storage.reader(BlobId.of("bkt", "obj"))) {
      got = FakeGcsServerTest.readAll(reader);
    }
    assertThat(got[123]).isEqualTo((byte) ~DATA[123]);
    got[123] = DATA[123];
    assertThat(got).isEqualTo(DATA);
  }

  @Test
  void corruptObjectAtRest_isServedAsIs() throws Exception {
    gcs.putObject("bkt", "rest", Arrays.copyOf(DATA, 4096), null);
    gcs.corruptObject("bkt", "rest");
    assertThat(storage.readAllBytes(BlobId.of("bkt", "rest"))).hasSize(4096).isNotEqualTo(Arrays.copyOf(DATA, 4096));
  }
}
