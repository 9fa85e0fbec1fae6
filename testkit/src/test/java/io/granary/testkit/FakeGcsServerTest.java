package io.granary.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.api.gax.paging.Page;
import com.google.cloud.ReadChannel;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.Storage.BlobListOption;
import com.google.cloud.storage.StorageException;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** FakeGcsServer against the real google-cloud-storage client (HTTP transport). */
class FakeGcsServerTest {
  @TempDir
  static Path dir;
  static FakeGcsServer gcs;
  static FaultProxy recorder; // only to see which requests the client sends
  static Storage storage;

  @BeforeAll
  static void start() throws Exception {
    gcs = FakeGcsServer.start(dir.resolve("gcs"));
    gcs.createBucket("bkt");
    recorder = FaultProxy.start(gcs.endpoint());
    storage = GcsClients.storage(recorder.endpoint());
  }

  @AfterAll
  static void stop() throws Exception {

    storage.close();
    recorder.close();
    gcs.close();
  }

  @Test
  void create_thenGet_metadataMatchesComputedChecksums() throws Exception {
    byte[] data = "hello granary".getBytes(StandardCharsets.UTF_8);
    Blob created = storage.create(BlobInfo.newBuilder("bkt", "dir/hello.txt").setContentType("text/plain")
        .setMetadata(Map.of("k", "v")).build(), data);
    Blob got = storage.get(BlobId.of("bkt", "dir/hello.txt"));

    assertThat(got.getSize()).isEqualTo(data.length);
    assertThat(got.getMd5()).isEqualTo(GcsClients.md5(data));
    assertThat(got.getCrc32c()).isEqualTo(GcsClients.crc32c(data));
    assertThat(got.getGeneration()).isEqualTo(created.getGeneration()).isEqualTo(gcs.generation("bkt", "dir/hello.txt"));
    assertThat(got.getMetageneration()).isEqualTo(1L);
    assertThat(got.getContentType()).isEqualTo("text/plain");
    assertThat(got.getMetadata()).containsEntry("k", "v");
    assertThat(got.getEtag()).isNotBlank();
    assertThat(got.getUpdateTimeOffsetDateTime()).isNotNull();
    assertThat(recorder.count(r -> r.pathAndQuery().startsWith("/storage/v1/b/bkt/o/dir%2Fhello.txt"))).isPositive();

    Blob again = storage.create(BlobInfo.newBuilder("bkt", "dir/hello.txt").build(), data);
    assertThat(again.getGeneration()).isGreaterThan(created.getGeneration());
  }

  @Test
  void readAllBytes_andReader_seekAndLimit() throws Exception {
    byte[] data = GcsClients.random(300_000, 1);
    gcs.putObject("bkt", "read/obj", data, "application/octet-stream");
    long before = gcs.downloads("bkt", "read/obj");

    assertThat(storage.readAllBytes(BlobId.of("bkt", "read/obj"))).isEqualTo(data);
    try (ReadChannel reader = storage.reader(BlobId.of("bkt", "read/obj"))) {
      reader.seek(1000);
      reader.limit(5000);
      assertThat(readAll(reader)).isEqualTo(java.util.Arrays.copyOfRange(data, 1000, 5000));
    }
    try (ReadChannel reader = storage.reader(BlobId.of("bkt", "read/obj"))) {
      reader.seek(299_990);
      assertThat(readAll(reader)).isEqualTo(java.util.Arrays.copyOfRange(data, 299_990, 300_000));
    }
    assertThat(gcs.downloads("bkt", "read/obj") - before).isEqualTo(3);
    assertThat(recorder.requests()).anySatisfy(r -> {
      assertThat(r.pathAndQuery()).contains("read%2Fobj").contains("alt=media");
      assertThat(r.range()).isEqualTo("bytes=1000-4999");
    });
  }

  @Test
  void reader_pinnedGeneration_failsWhenObjectReplaced() throws Exception {
    gcs.putObject("bkt", "gen/obj", "one".getBytes(StandardCharsets.UTF_8), "text/plain");
    long gen = gcs.generation("bkt", "gen/obj");
    gcs.putObject("bkt", "gen/obj", "two".getBytes(StandardCharsets.UTF_8), "text/plain");

    assertThatThrownBy(() -> storage.readAllBytes(BlobId.of("bkt", "gen/obj", gen)))
        .isInstanceOf(StorageException.class).satisfies(e -> assertThat(((StorageException) e).getCode()).isEqualTo(404));
    assertThatThrownBy(() -> storage.readAllBytes(BlobId.of("bkt", "gen/obj"), Storage.BlobSourceOption.generationMatch(gen)))
        .isInstanceOf(StorageException.class).satisfies(e -> assertThat(((StorageException) e).getCode()).isEqualTo(412));
    assertThat(storage.readAllBytes(BlobId.of("bkt", "gen/obj", gcs.generation("bkt", "gen/obj"))))
        .isEqualTo("two".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void list_pagesPrefixDelimiterStartOffset() throws Exception {
    for (String n : List.of("l/a/1", "l/a/2", "l/b", "l/c/1", "l/d", "l/e", "l/\uE000", "l/\uD83D\uDE00")) {
      gcs.putObject("bkt", n, new byte[] {1}, null);
    }
    List<String> all = new ArrayList<>();
    Page<Blob> page = storage.list("bkt", BlobListOption.prefix("l/"), BlobListOption.pageSize(3));
    int pages = 0;
    for (; page != null; page = page.getNextPage()) {
      pages++;
      page.getValues().forEach(b -> all.add(b.getName()));
    }
    assertThat(pages).isEqualTo(3);
    // UTF-8 byte order puts U+1F600 (4 bytes, F0..) after U+E000 (EE..), unlike UTF-16 order.
    assertThat(all).containsExactly("l/a/1", "l/a/2", "l/b", "l/c/1", "l/d", "l/e", "l/\uE000", "l/\uD83D\uDE00");

    List<String> dirs = new ArrayList<>();
    storage.list("bkt", BlobListOption.prefix("l/"), BlobListOption.currentDirectory(), BlobListOption.pageSize(2))
        .iterateAll().forEach(b -> dirs.add(b.getName() + (b.isDirectory() ? " dir" : "")));
    // The client lists a page's items before its prefixes.
    assertThat(dirs).containsExactlyInAnyOrder("l/a/ dir", "l/b", "l/c/ dir", "l/d", "l/e", "l/\uE000",
        "l/\uD83D\uDE00");

    List<String> from = new ArrayList<>();
    storage.list("bkt", BlobListOption.prefix("l/"), BlobListOption.startOffset("l/c"))
        .iterateAll().forEach(b -> from.add(b.getName()));
    assertThat(from).startsWith("l/c/1", "l/d").hasSize(5);
  }

  @Test
  void createFrom_20MiBFile_resumableUpload() throws Exception {
    byte[] data = GcsClients.random(20 << 20, 2);
    Path file = Files.write(dir.resolve("big.bin"), data);
    recorder.resetCounts();

    Blob blob = storage.createFrom(BlobInfo.newBuilder("bkt", "big/file.bin").setContentType("application/x-test")
        .build(), file);

    assertThat(blob.getSize()).isEqualTo(data.length);
    assertThat(blob.getMd5()).isEqualTo(GcsClients.md5(data));
    assertThat(blob.getCrc32c()).isEqualTo(GcsClients.crc32c(data));
    assertThat(recorder.requests()).anySatisfy(r -> assertThat(r.pathAndQuery()).contains("uploadType=resumable"));
    assertThat(recorder.count(r -> r.method().equals("PUT"))).isGreaterThanOrEqualTo(1);
    assertThat(storage.readAllBytes(BlobId.of("bkt", "big/file.bin"))).isEqualTo(data);
  }

  @Test
  void writer_smallChunks_resumableSessionWith308s() throws Exception {
    byte[] data = GcsClients.random(3 * 256 * 1024 + 17, 3);
    recorder.resetCounts();
    try (var writer = storage.writer(BlobInfo.newBuilder("bkt", "w/chunks").build())) {
      writer.setChunkSize(256 * 1024);
      for (int off = 0; off < data.length; off += 100_000) {
        writer.write(ByteBuffer.wrap(data, off, Math.min(100_000, data.length - off)));
      }
    }
    assertThat(recorder.count(r -> r.method().equals("PUT"))).isGreaterThan(1);
    assertThat(storage.get(BlobId.of("bkt", "w/chunks")).getCrc32c()).isEqualTo(GcsClients.crc32c(data));
  }

  @Test
  @SuppressWarnings("deprecation") // md5Match: the only way to make the client send an md5Hash it did not compute
  void create_withWrongClientChecksum_is400() throws Exception {
    byte[] data = "payload".getBytes(StandardCharsets.UTF_8);
    BlobInfo info = BlobInfo.newBuilder("bkt", "bad/md5").setMd5(GcsClients.md5("other".getBytes())).build();
    assertThatThrownBy(() -> {
      try (var w = storage.writer(info, Storage.BlobWriteOption.md5Match())) {
        w.write(ByteBuffer.wrap(data));
      }
    })
        .isInstanceOf(StorageException.class).satisfies(e -> assertThat(((StorageException) e).getCode()).isEqualTo(400));
    assertThat(storage.get(BlobId.of("bkt", "bad/md5"))).isNull();
  }

  @Test
  void delete_and404s() throws Exception {
    gcs.putObject("bkt", "del/x", new byte[] {1, 2}, null);
    assertThat(storage.delete(BlobId.of("bkt", "del/x"))).isTrue();
    assertThat(storage.delete(BlobId.of("bkt", "del/x"))).isFalse();
    assertThat(storage.get(BlobId.of("bkt", "del/x"))).isNull();
    assertThatThrownBy(() -> storage.readAllBytes(BlobId.of("bkt", "del/x")))
        .isInstanceOf(StorageException.class).satisfies(e -> assertThat(((StorageException) e).getCode()).isEqualTo(404));
    assertThat(storage.get("bkt").getName()).isEqualTo("bkt");
    assertThat(storage.get("no-such-bucket")).isNull();
  }

  @Test
  void rangeBeyondEnd_is416_andCorruptObject_keepsMetadata() throws Exception {
    byte[] data = GcsClients.random(1000, 4);
    gcs.putObject("bkt", "c/obj", data, null);
    var conn = (java.net.HttpURLConnection) gcs.endpoint()
        .resolve("/download/storage/v1/b/bkt/o/c%2Fobj?alt=media").toURL().openConnection();
    conn.setRequestProperty("Range", "bytes=1000-");
    assertThat(conn.getResponseCode()).isEqualTo(416);
    conn.disconnect();

    gcs.corruptObject("bkt", "c/obj");
    Blob meta = storage.get(BlobId.of("bkt", "c/obj"));
    byte[] read = storage.readAllBytes(BlobId.of("bkt", "c/obj"));
    assertThat(meta.getCrc32c()).isEqualTo(GcsClients.crc32c(data));
    assertThat(read).hasSize(1000).isNotEqualTo(data);
    assertThat(GcsClients.crc32c(read)).isNotEqualTo(meta.getCrc32c());
  }

  @Test
  void requests_countsEverything() {
    long before = gcs.requests();
    storage.get(BlobId.of("bkt", "nothing"));
    assertThat(gcs.requests()).isGreaterThan(before);
  }

  static byte[] readAll(ReadChannel reader) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Channels.newInputStream(reader).transferTo(out);
    return out.toByteArray();
  }
}
