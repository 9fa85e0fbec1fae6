package io.granary.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.it.support.Content;
import io.granary.it.support.Descriptors;
import io.granary.it.support.Http;
import io.granary.it.support.Resources;
import io.granary.it.support.SigV4;
import io.granary.it.support.TestCluster;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The HTTP edge of real nodes (issue 18 item 9), over raw sockets: a request whose framing cannot be trusted gets
 * its error status on every listener (proxy and target, native and S3 API) and the server closes the connection;
 * a signed request whose body does not match its signed payload hash changes nothing. After every test the one
 * object is byte-for-byte what it was, nothing else exists, and the nodes' open file descriptors return to what
 * they were.
 */
class HttpEdgeIT {
  private static final String BUCKET = "edge";
  private static final String KEEP = "keep";
  private static final byte[] KEEP_DATA = Content.bytes(18, 50_000);
  /** A bounded wait for an answer or the close that follows it; a server that keeps the connection fails the test. */
  private static final int READ_TIMEOUT_MILLIS = 15_000;
  private static TestCluster cluster;
  private static String target; // the only target: it owns every object

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("httpedge", 1);
    target = cluster.targetIds().get(0);
    assertThat(Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint() + "/v1/buckets/" + BUCKET))
        .POST(HttpRequest.BodyPublishers.noBody())).status()).isEqualTo(201);
    assertThat(Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(objectUrl(KEEP)))
        .PUT(HttpRequest.BodyPublishers.ofByteArray(KEEP_DATA))).status()).isEqualTo(200);
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(cluster);
  }

  /** Nothing changed: the object is intact, no other object exists, no work file is left on the target. */
  @AfterEach
  void nothingChanged() throws Exception {
    assertThat(Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(objectUrl(KEEP))).GET()).body())
        .isEqualTo(KEEP_DATA);
    String listing = Http.get(cluster.endpoint() + "/v1/buckets/" + BUCKET).bodyText();
    assertThat(listing.split("\"name\"", -1)).as(listing).hasSize(2);
    Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(workFiles()).isEmpty());
  }

  // ---------------------------------------------------------------- the listeners and their APIs

  /** One way in: a node and an API, and how a request to it is authorized. */
  enum Endpoint {
    PROXY_S3, PROXY_NATIVE, TARGET_NATIVE, TARGET_S3;

    String base() {
      return this == PROXY_S3 || this == PROXY_NATIVE ? cluster.endpoint() : cluster.targetUrl(target);
    }

    long pid() {
      return cluster.local().process(this == PROXY_S3 || this == PROXY_NATIVE ? "p1" : target).pid();
    }

    String uri(String key) {
      return switch (this) {
        case PROXY_S3 -> "/" + BUCKET + "/" + key;
        case TARGET_S3 -> "/s3/" + BUCKET + "/" + key;
        case PROXY_NATIVE, TARGET_NATIVE -> "/v1/objects/" + BUCKET + "/" + key + "?provider=ais";
      };
    }

    /** Request line and headers (no blank line) of {@code method} on {@code key}, authorized as this API wants. */
    String head(String method, String key, String version) {
      URI base = URI.create(base());
      String uri = uri(key);
      StringBuilder h = new StringBuilder(method + " " + uri + " " + version + "\r\nHost: " + base.getHost() + ":"
          + base.getPort());
      switch (this) {
        case PROXY_S3 -> SigV4.sign(HttpRequest.newBuilder(URI.create(base() + uri)), method, base() + uri,
            new byte[0], cluster.credentials().accessKey(), cluster.credentials().secretKey())
            .uri(URI.create(base() + uri)).build().headers().map()
            .forEach((name, values) -> values.forEach(v -> h.append("\r\n").append(name).append(": ").append(v)));
        case TARGET_S3 -> h.append("\r\ngranary-provider: ais").append(cluster.signatureLines(method, uri));
        case TARGET_NATIVE -> h.append(cluster.signatureLines(method, uri));
        case PROXY_NATIVE -> { }
      }
      return h.toString();
    }
  }

  // ---------------------------------------------------------------- framing errors

  /** A framing variant: extra header lines and the status they earn. */
  record Variant(String name, String headers, int status) {
    @Override
    public String toString() {
      return name;
    }
  }

  static List<Variant> framingVariants() {
    return List.of(
        new Variant("TE gzip", "Transfer-Encoding: gzip", 400),
        new Variant("TE xchunked", "Transfer-Encoding: xchunked", 400),
        new Variant("TE identity", "Transfer-Encoding: identity", 400),
        new Variant("TE chunked, gzip", "Transfer-Encoding: chunked, gzip", 400),
        new Variant("TE chunked then gzip (two lines)", "Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip", 400),
        new Variant("TE chunked twice", "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked", 400),
        new Variant("TE obs-fold", "Transfer-Encoding: gzip\r\n chunked", 400),
        new Variant("TE with Content-Length", "Transfer-Encoding: chunked\r\nContent-Length: 10", 400),
        new Variant("TE gzip with Content-Length", "Transfer-Encoding: gzip\r\nContent-Length: 10", 400),
        new Variant("TE gzip, chunked", "Transfer-Encoding: gzip, chunked", 501),
        new Variant("CL 5, 5", "Content-Length: 5, 5", 400),
        new Variant("CL twice", "Content-Length: 5\r\nContent-Length: 5", 400),
        new Variant("CL 0x5", "Content-Length: 0x5", 400),
        new Variant("CL negative", "Content-Length: -5", 400),
        new Variant("CL huge", "Content-Length: 99999999999999999999999", 400));
  }

  /**
   * Every variant, on every listener, as a signed PUT of the kept object whose body is chunked and carries a
   * signed DELETE of that object: a server that framed the body wrongly would store an empty object or run the
   * DELETE. Each gets its status and a closed connection, and the nodes' descriptors return to their baseline.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("framingVariants")
  void untrustedFraming_isRefused_andTheConnectionClosed_onEveryListener(Variant v) throws Exception {
    long[] baseline = descriptors();
    for (Endpoint e : Endpoint.values()) {
      String smuggled = e.head("DELETE", KEEP, "HTTP/1.1") + "\r\n\r\n";
      String body = Integer.toHexString(smuggled.length()) + "\r\n" + smuggled + "\r\n0\r\n\r\n" + smuggled;
      Answer a = exchange(e, e.head("PUT", KEEP, "HTTP/1.1") + "\r\n" + v.headers() + "\r\n\r\n" + body);
      assertThat(a.status()).as("%s: %s", e, a.text()).isEqualTo(v.status());
      assertThat(a.closed()).as("%s: the server closed the connection", e).isTrue();
      assertThat(a.responses()).as("%s: one answer, nothing after it: %s", e, a.text()).isEqualTo(1);
    }
    awaitDescriptors(baseline);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("unknownVersions")
  void unknownHttpVersion_is505_andTheConnectionClosed_onEveryListener(String version) throws Exception {
    long[] baseline = descriptors();
    for (Endpoint e : Endpoint.values()) {
      String smuggled = e.head("DELETE", KEEP, "HTTP/1.1") + "\r\n\r\n";
      Answer a = exchange(e, e.head("DELETE", KEEP, version) + "\r\n\r\n" + smuggled);
      assertThat(a.status()).as("%s: %s", e, a.text()).isEqualTo(505);
      assertThat(a.text()).contains("HttpVersionNotSupported");
      assertThat(a.closed()).as("%s: the server closed the connection", e).isTrue();
      assertThat(a.responses()).as("%s: %s", e, a.text()).isEqualTo(1);
    }
    awaitDescriptors(baseline);
  }

  static List<String> unknownVersions() {
    return List.of("HTTP/9.9", "HTTP/2.0");
  }

  @Test
  void manyMalformedContentLengths_leaveNoConnectionBehind() throws Exception {
    long[] baseline = descriptors();
    for (int i = 0; i < 50; i++) {
      for (Endpoint e : List.of(Endpoint.PROXY_S3, Endpoint.TARGET_NATIVE)) {
        Answer a = exchange(e, e.head("PUT", KEEP, "HTTP/1.1") + "\r\nContent-Length: 0x5\r\n\r\nhello");
        assertThat(a.status()).isEqualTo(400);
        assertThat(a.closed()).isTrue();
      }
    }
    awaitDescriptors(baseline);
  }

  // ---------------------------------------------------------------- bodies that do not match their signature

  /**
   * A signed S3 DELETE whose body does not hash to its x-amz-content-sha256, sent with a Content-Length and
   * chunked, many times (it used to delete the object in about half the tries): 400, and the object stays.
   */
  @Test
  void s3Delete_bodyNotMatchingItsSignedHash_is400_andDeletesNothing() throws Exception {
    for (int i = 0; i < 10; i++) {
      for (boolean chunked : List.of(false, true)) {
        Http.Reply r = signedS3("DELETE", "/" + BUCKET + "/" + KEEP, "signed".getBytes(StandardCharsets.UTF_8),
            "sent instead".getBytes(StandardCharsets.UTF_8), chunked);
        assertThat(r.status()).as(r.bodyText()).isEqualTo(400);
        assertThat(r.bodyText()).contains("XAmzContentSHA256Mismatch");
      }
    }
  }

  @Test
  void s3DeleteObjects_andDeleteBucket_bodyNotMatchingItsSignedHash_are400_andDeleteNothing() throws Exception {
    byte[] delete = ("<Delete><Object><Key>" + KEEP + "</Key></Object></Delete>").getBytes(StandardCharsets.UTF_8);
    byte[] other = ("<Delete><Object><Key>" + KEEP + "</Key></Object><Quiet>true</Quiet></Delete>")
        .getBytes(StandardCharsets.UTF_8);
    String empty = "edge-empty";
    assertThat(signedS3("PUT", "/" + empty, new byte[0], new byte[0], false).status()).isEqualTo(200);
    for (boolean chunked : List.of(false, true)) {
      Http.Reply r = signedS3("POST", "/" + BUCKET + "?delete", delete, other, chunked);
      assertThat(r.status()).as(r.bodyText()).isEqualTo(400);
      assertThat(r.bodyText()).contains("XAmzContentSHA256Mismatch");
      r = signedS3("DELETE", "/" + empty, "a".getBytes(StandardCharsets.UTF_8), "b".getBytes(StandardCharsets.UTF_8),
          chunked);
      assertThat(r.status()).as(r.bodyText()).isEqualTo(400);
      assertThat(r.bodyText()).contains("XAmzContentSHA256Mismatch");
      assertThat(signedS3("HEAD", "/" + empty, new byte[0], new byte[0], false).status()).as("bucket kept")
          .isEqualTo(200);
    }
    assertThat(signedS3("DELETE", "/" + empty, new byte[0], new byte[0], false).status()).isEqualTo(204);
  }

  @Test
  void s3MultipartOperations_bodyNotMatchingItsSignedHash_are400_andChangeNothing() throws Exception {
    String key = "mpu";
    Http.Reply created = signedS3("POST", "/" + BUCKET + "/" + key + "?uploads", new byte[0], new byte[0], false);
    assertThat(created.status()).isEqualTo(200);
    String text = created.bodyText();
    String uploadId = text.substring(text.indexOf("<UploadId>") + 10, text.indexOf("</UploadId>"));
    byte[] part = Content.bytes(19, 1000);
    Http.Reply uploaded = signedS3("PUT", "/" + BUCKET + "/" + key + "?partNumber=1&uploadId=" + uploadId, part, part,
        false);
    assertThat(uploaded.status()).isEqualTo(200);
    String etag = uploaded.header("etag").orElseThrow();
    byte[] complete = ("<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>" + etag
        + "</ETag></Part></CompleteMultipartUpload>").getBytes(StandardCharsets.UTF_8);
    byte[] tampered = new String(complete, StandardCharsets.UTF_8).replace("<PartNumber>1", "<PartNumber> 1")
        .getBytes(StandardCharsets.UTF_8);
    for (boolean chunked : List.of(false, true)) {
      // CompleteMultipartUpload, AbortMultipartUpload and CreateMultipartUpload, each with a body it was not signed for.
      Http.Reply r = signedS3("POST", "/" + BUCKET + "/" + key + "?uploadId=" + uploadId, complete, tampered, chunked);
      assertThat(r.bodyText()).contains("XAmzContentSHA256Mismatch");
      r = signedS3("DELETE", "/" + BUCKET + "/" + key + "?uploadId=" + uploadId, new byte[1], new byte[2], chunked);
      assertThat(r.bodyText()).contains("XAmzContentSHA256Mismatch");
      r = signedS3("POST", "/" + BUCKET + "/other?uploads", new byte[1], new byte[2], chunked);
      assertThat(r.bodyText()).contains("XAmzContentSHA256Mismatch");
    }
    // The upload is intact (its part listed) and no other upload was created; then it is aborted properly.
    Http.Reply parts = signedS3("GET", "/" + BUCKET + "/" + key + "?uploadId=" + uploadId, new byte[0], new byte[0],
        false);
    assertThat(parts.status()).as(parts.bodyText()).isEqualTo(200);
    assertThat(parts.bodyText()).contains("<PartNumber>1</PartNumber>");
    Http.Reply uploads = signedS3("GET", "/" + BUCKET + "?uploads", new byte[0], new byte[0], false);
    assertThat(uploads.bodyText().split("<UploadId>", -1)).as(uploads.bodyText()).hasSize(2);
    assertThat(signedS3("DELETE", "/" + BUCKET + "/" + key + "?uploadId=" + uploadId, new byte[0], new byte[0],
        false).status()).isEqualTo(204);
  }

  @Test
  void s3CopyObject_bodyNotMatchingItsSignedHash_is400_andCopiesNothing() throws Exception {
    for (boolean chunked : List.of(false, true)) {
      Http.Reply r = signedS3("PUT", "/" + BUCKET + "/copy", new byte[1], new byte[2], chunked,
          "x-amz-copy-source", "/" + BUCKET + "/" + KEEP);
      assertThat(r.status()).as(r.bodyText()).isEqualTo(400);
      assertThat(r.bodyText()).contains("XAmzContentSHA256Mismatch");
    }
  }

  // ---------------------------------------------------------------- helpers

  private static String objectUrl(String key) {
    return cluster.endpoint() + "/v1/objects/" + BUCKET + "/" + key;
  }

  /** What came back on a raw connection: the first answer's status, how many answers, whether the server closed. */
  record Answer(int status, int responses, boolean closed, String text) {
  }

  /**
   * Writes {@code raw} on a new connection and reads until the server closes it, each read bounded by
   * {@link #READ_TIMEOUT_MILLIS}: a server that neither answers nor closes makes {@code closed} false.
   */
  private static Answer exchange(Endpoint e, String raw) throws IOException {
    URI u = URI.create(e.base());
    try (Socket s = new Socket(u.getHost(), u.getPort())) {
      s.setSoTimeout(READ_TIMEOUT_MILLIS);
      s.getOutputStream().write(raw.getBytes(StandardCharsets.ISO_8859_1));
      s.getOutputStream().flush();
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      InputStream in = s.getInputStream();
      boolean closed;
      try {
        byte[] buf = new byte[8192];
        for (int n; (n = in.read(buf)) != -1; ) {
          got.write(buf, 0, n);
        }
        closed = true;
      } catch (SocketTimeoutException timeout) {
        closed = false;
      }
      String text = got.toString(StandardCharsets.ISO_8859_1);
      assertThat(text).as("an answer from %s", e).startsWith("HTTP/1.1 ");
      int responses = text.split("(?m)^HTTP/1\\.1 \\d{3} ", -1).length - 1;
      assertThat(text.toLowerCase(Locale.ROOT)).contains("connection: close");
      return new Answer(Integer.parseInt(text.substring(9, 12)), responses, closed, text);
    }
  }

  /**
   * A SigV4 request on the proxy's S3 API signed for {@code signedBody} and sent with {@code sentBody}, with a
   * Content-Length or chunked; {@code headers} are extra name/value pairs, signed too.
   */
  private static Http.Reply signedS3(String method, String pathAndQuery, byte[] signedBody, byte[] sentBody,
      boolean chunked, String... headers) throws Exception {
    String url = cluster.endpoint() + pathAndQuery;
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30));
    java.util.Map<String, String> signed = new java.util.LinkedHashMap<>();
    for (int i = 0; i < headers.length; i += 2) {
      signed.put(headers[i], headers[i + 1]);
    }
    SigV4.sign(b, method, url, signedBody, signed, cluster.credentials().accessKey(),
        cluster.credentials().secretKey());
    HttpRequest.BodyPublisher body = sentBody.length == 0 ? HttpRequest.BodyPublishers.noBody()
        : chunked ? HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(sentBody))
        : HttpRequest.BodyPublishers.ofByteArray(sentBody);
    return Http.send(Http.NO_FOLLOW, b.method(method, body));
  }
  private static long[] descriptors() {
    return nodes().now();
  }

  private static void awaitDescriptors(long[] baseline) {
    nodes().awaitBack(baseline);
  }

  private static Descriptors nodes() {
    return new Descriptors(Endpoint.PROXY_S3.pid(), Endpoint.TARGET_S3.pid());
  }

  private static List<Path> workFiles() throws IOException {
    List<Path> all = new ArrayList<>();
    for (Path mp : cluster.mountpaths(target)) {
      Path work = mp.resolve("work");
      if (Files.isDirectory(work)) {
        try (Stream<Path> s = Files.list(work)) {
          all.addAll(s.toList());
        }
      }
    }
    return all;
  }
}
