package io.granary.it.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.it.support.TestCluster;
import io.granary.it.support.Resources;
import io.granary.it.support.Http;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * s3cmd against the S3 API of a 2-target cluster, path-style over plain HTTP with SigV4, as a user configures it
 * for an S3-compatible store. The tests run in order on one bucket; the last ones on a second bucket, with
 * {@code signature_v2 = True} (SigV2 headers), ACLs set by {@code setacl} and SigV2 presigned URLs from
 * {@code signurl}. s3cmd missing is a failure, not a skip:
 * {@code .ci/run} installs it.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class S3cmdIT {
  private static final String BUCKET = "s3cmd-it";
  private static final String S3 = "s3://" + BUCKET;
  private static final int BIG = 20 << 20;

  private static TestCluster cluster;
  private static Path scratch;
  private static Path config;

  @BeforeAll
  static void start() throws Exception {
    scratch = Tools.scratch("s3cmd-client");
    Tools.requireInstalled(scratch, "s3cmd", "apt-get install s3cmd", List.of("s3cmd", "--version"));
    cluster = TestCluster.start("s3cmd", 2);
    config = writeConfig(scratch.resolve("s3cfg"), cluster.credentials().secretKey());
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(cluster);
  }

  private static Path writeConfig(Path file, String secret) throws Exception {
    return writeConfig(file, secret, false);
  }

  /** {@code signatureV2}: s3cmd signs with Signature Version 2 (headers, and its {@code signurl} URLs always). */
  private static Path writeConfig(Path file, String secret, boolean signatureV2) throws Exception {
    URI u = URI.create(cluster.endpoint());
    String host = u.getHost() + ":" + u.getPort();
    Files.writeString(file, String.join("\n",
        "[default]",
        "access_key = " + cluster.credentials().accessKey(),
        "secret_key = " + secret,
        "host_base = " + host,
        "host_bucket = " + host, // no %(bucket)s: path-style requests
        "use_https = False",
        "check_ssl_certificate = False",
        "signature_v2 = " + (signatureV2 ? "True" : "False"),
        "bucket_location = us-east-1",
        "progress_meter = False",
        ""));
    return file;
  }

  private static Tools.Run s3cmd(String... args) throws Exception {
    return Tools.ok(scratch, Map.of(), command(config, args));
  }

  private static List<String> command(Path cfg, String... args) {
    List<String> cmd = new ArrayList<>(List.of("s3cmd", "-c", cfg.toString()));
    cmd.addAll(List.of(args));
    return cmd;
  }

  @Test
  @Order(1)
  void s3cmd_mb_createsABucket_thatLsAndInfoShow() throws Exception {
    assertThat(s3cmd("mb", S3).output()).contains("Bucket '" + S3 + "/' created");
    assertThat(s3cmd("ls").output()).contains(S3);
    Tools.Run info = s3cmd("info", S3);
    assertThat(info.output()).as(info::describe).contains("Location:  us-east-1");
  }

  @Test
  @Order(2)
  void s3cmd_put_smallFileWithMimeTypeAndMetadata_getIsByteExact_andInfoShowsThem() throws Exception {
    Path small = Tools.file(scratch.resolve("up/small.bin"), 1, 100_000);
    s3cmd("put", "--mime-type=text/x-granary", "--add-header=x-amz-meta-purpose:s3cmd-it", small.toString(),
        S3 + "/files/small.bin");
    Path got = scratch.resolve("down/small.bin");
    Files.createDirectories(got.getParent());
    Tools.Run get = s3cmd("get", "--force", S3 + "/files/small.bin", got.toString());
    // s3cmd compares the MD5 of what it downloaded with the ETag of a single-part object
    assertThat(get.output()).as(get::describe).doesNotContainIgnoringCase("MD5 signatures do not match");
    assertThat(Tools.sha256(got)).isEqualTo(Tools.sha256(small));
    Tools.Run info = s3cmd("info", S3 + "/files/small.bin");
    assertThat(info.output()).as(info::describe)
        .contains("File size: 100000")
        .contains("MIME type: text/x-granary")
        .contains("MD5 sum:   " + Tools.md5(small))
        .contains("x-amz-meta-purpose: s3cmd-it");
  }

  @Test
  @Order(3)
  void s3cmd_put_20MiBIn5MiBChunks_isAFourPartUpload_andGetIsByteExact() throws Exception {
    Path big = Tools.file(scratch.resolve("up/big.bin"), 2, BIG);
    Tools.Run put = s3cmd("--debug", "put", "--multipart-chunk-size-mb=5", big.toString(), S3 + "/files/big.bin");
    assertThat(put.output()).as(put::describe).contains("MultiPart: Upload finished: 4 parts");
    // ls -l shows the ETag: MD5 of the parts' MD5s, "-4"
    Tools.Run ls = s3cmd("ls", "-l", S3 + "/files/big.bin");
    assertThat(ls.output()).as(ls::describe).contains(multipartETag(big, 5 << 20) + " ").contains(" " + BIG + " ");
    Path got = scratch.resolve("down/big.bin");
    Tools.Run get = s3cmd("get", "--force", S3 + "/files/big.bin", got.toString());
    assertThat(get.output()).as(get::describe).doesNotContainIgnoringCase("MD5 signatures do not match");
    assertThat(Tools.sha256(got)).isEqualTo(Tools.sha256(big));
    Tools.Run info = s3cmd("info", S3 + "/files/big.bin");
    assertThat(info.output()).as(info::describe).contains("File size: " + BIG)
        .contains("MD5 sum:   " + Tools.md5(big)); // from s3cmd's own x-amz-meta-s3cmd-attrs
  }

  @Test
  @Order(4)
  void s3cmd_ls_la_and_du_listObjectsDirectoriesAndTotals() throws Exception {
    Tools.Run ls = s3cmd("ls", S3);
    assertThat(ls.output()).as(ls::describe).contains("DIR  " + S3 + "/files/");
    Tools.Run files = s3cmd("ls", S3 + "/files/");
    assertThat(files.output().lines().filter(l -> l.contains(S3 + "/files/")).toList()).as(files::describe)
        .hasSize(2)
        .anySatisfy(l -> assertThat(l).contains(" 100000  " + S3 + "/files/small.bin"))
        .anySatisfy(l -> assertThat(l).contains(" " + BIG + "  " + S3 + "/files/big.bin"));
    Tools.Run du = s3cmd("du", S3);
    assertThat(du.output()).as(du::describe).containsPattern("^\\s*" + (BIG + 100_000) + "\\s+2 objects ");
    Tools.Run la = s3cmd("la", "--recursive");
    assertThat(la.output()).as(la::describe).contains(S3 + "/files/small.bin").contains(S3 + "/files/big.bin");
  }

  @Test
  @Order(5)
  void s3cmd_cp_copiesServerSide_byteExact() throws Exception {
    Tools.Run cp = s3cmd("cp", S3 + "/files/small.bin", S3 + "/copies/small-copy.bin");
    assertThat(cp.output()).as(cp::describe).contains("remote copy:");
    Path got = scratch.resolve("down/small-copy.bin");
    s3cmd("get", "--force", S3 + "/copies/small-copy.bin", got.toString());
    assertThat(Tools.sha256(got)).isEqualTo(Tools.sha256(scratch.resolve("up/small.bin")));
    Tools.Run info = s3cmd("info", S3 + "/copies/small-copy.bin");
    assertThat(info.output()).as(info::describe).contains("x-amz-meta-purpose: s3cmd-it")
        .contains("MIME type: text/x-granary");
  }

  @Test
  @Order(6)
  void s3cmd_mv_andModify_moveTheObject_andReplaceItsTypeAndMetadata() throws Exception {
    s3cmd("mv", S3 + "/copies/small-copy.bin", S3 + "/copies/small-moved.bin");
    Tools.Run ls = s3cmd("ls", S3 + "/copies/");
    assertThat(ls.output()).as(ls::describe).contains(S3 + "/copies/small-moved.bin")
        .doesNotContain("small-copy.bin");
    s3cmd("modify", "--mime-type=text/x-modified", "--add-header=x-amz-meta-stage:modified",
        S3 + "/copies/small-moved.bin");
    Tools.Run info = s3cmd("info", S3 + "/copies/small-moved.bin");
    assertThat(info.output()).as(info::describe).contains("MIME type: text/x-modified")
        .contains("x-amz-meta-stage: modified").contains("File size: 100000");
    Path got = scratch.resolve("down/small-moved.bin");
    s3cmd("get", "--force", S3 + "/copies/small-moved.bin", got.toString());
    assertThat(Tools.sha256(got)).isEqualTo(Tools.sha256(scratch.resolve("up/small.bin")));
  }

  @Test
  @Order(7)
  void s3cmd_sync_uploadsATreeWithUnicodeNames_andSyncsItBackByteExact_andASecondSyncUploadsNothing()
      throws Exception {
    Path local = scratch.resolve("tree");
    Map<String, String> expected = Tools.sampleTree(local, 100);
    Tools.Run up = s3cmd("sync", local + "/", S3 + "/synced/");
    assertThat(up.output()).as(up::describe).contains("Done. Uploaded");
    Tools.Run ls = s3cmd("ls", "--recursive", S3 + "/synced/");
    for (String name : expected.keySet()) {
      assertThat(ls.output()).as(ls::describe).contains(S3 + "/synced/" + name);
    }
    Path back = scratch.resolve("tree-back");
    Files.createDirectories(back);
    s3cmd("sync", S3 + "/synced/", back + "/");
    assertThat(Tools.tree(back)).isEqualTo(expected);
    Tools.Run again = s3cmd("sync", local + "/", S3 + "/synced/");
    assertThat(again.output()).as(again::describe).doesNotContain("upload:");
  }

  @Test
  @Order(8)
  void s3cmd_wrongSecret_failsWithSignatureDoesNotMatch() throws Exception {
    Path bad = writeConfig(scratch.resolve("s3cfg-wrong-secret"), cluster.credentials().secretKey() + "x");
    Tools.Run r = Tools.run(scratch, Map.of(), Tools.TIMEOUT, command(bad, "ls", S3));
    assertThat(r.timedOut()).as(r::describe).isFalse();
    assertThat(r.exit()).as(r::describe).isNotZero();
    assertThat(r.output()).as(r::describe).contains("403 (SignatureDoesNotMatch)");
  }

  @Test
  @Order(9)
  void s3cmd_del_removesObjects_rbRefusesANonEmptyBucket_andRbRecursiveRemovesIt() throws Exception {
    Tools.Run del = s3cmd("del", S3 + "/copies/small-moved.bin");
    assertThat(del.output()).as(del::describe).contains("delete: '" + S3 + "/copies/small-moved.bin'");
    Tools.Run delTree = s3cmd("del", "--recursive", "--force", S3 + "/synced/");
    assertThat(delTree.output().lines().filter(l -> l.startsWith("delete: ")).count()).as(delTree::describe)
        .isEqualTo(9);
    Tools.Run ls = s3cmd("ls", "--recursive", S3);
    assertThat(ls.output()).as(ls::describe).doesNotContain("/synced/").doesNotContain("/copies/")
        .contains(S3 + "/files/small.bin");

    Tools.Run rb = Tools.run(scratch, Map.of(), Tools.TIMEOUT, command(config, "rb", S3));
    assertThat(rb.exit()).as(rb::describe).isNotZero();
    assertThat(rb.output()).as(rb::describe).contains("409 (BucketNotEmpty)");

    Tools.Run rbr = s3cmd("rb", "--recursive", "--force", S3);
    assertThat(rbr.output()).as(rbr::describe).contains("Bucket '" + S3 + "/' removed");
    assertThat(s3cmd("ls").output()).doesNotContain(S3);
    Tools.Run info = Tools.run(scratch, Map.of(), Tools.TIMEOUT, command(config, "info", S3));
    assertThat(info.exit()).as(info::describe).isNotZero();
    assertThat(info.output()).as(info::describe).contains("404 (NoSuchBucket)");
  }

  private static final String V2 = "s3://s3cmd-v2";

  private static Tools.Run s3cmdV2(String... args) throws Exception {
    return Tools.ok(scratch, Map.of(), command(scratch.resolve("s3cfg-v2"), args));
  }

  private static Http.Reply unsignedGet(String pathAndQuery) throws Exception {
    return Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint() + pathAndQuery)).GET());
  }

  @Test
  @Order(10)
  void s3cmd_signatureV2_mbPutGetLsDel_includingAFourPartUpload() throws Exception {
    writeConfig(scratch.resolve("s3cfg-v2"), cluster.credentials().secretKey(), true);
    assertThat(s3cmdV2("mb", V2).output()).contains("Bucket '" + V2 + "/' created");
    Path small = Tools.file(scratch.resolve("up-v2/small.txt"), 21, 50_000);
    Path big = Tools.file(scratch.resolve("up-v2/big.bin"), 22, BIG);
    s3cmdV2("put", "--mime-type=text/plain", small.toString(), V2 + "/small.txt");
    Tools.Run put = s3cmdV2("--debug", "put", "--multipart-chunk-size-mb=5", big.toString(), V2 + "/big.bin");
    assertThat(put.output()).as(put::describe).contains("MultiPart: Upload finished: 4 parts")
        .contains("'Authorization': 'AWS " + cluster.credentials().accessKey() + ":"); // SigV2, not AWS4-HMAC-SHA256
    Tools.Run ls = s3cmdV2("ls", V2);
    assertThat(ls.output()).as(ls::describe).contains(" 50000  " + V2 + "/small.txt")
        .contains(" " + BIG + "  " + V2 + "/big.bin");
    for (String name : List.of("small.txt", "big.bin")) {
      Path got = scratch.resolve("down-v2/" + name);
      Files.createDirectories(got.getParent());
      Tools.Run get = s3cmdV2("get", "--force", V2 + "/" + name, got.toString());
      assertThat(get.output()).as(get::describe).doesNotContainIgnoringCase("MD5 signatures do not match");
      assertThat(Tools.sha256(got)).isEqualTo(Tools.sha256(scratch.resolve("up-v2/" + name)));
    }
    s3cmdV2("put", small.toString(), V2 + "/doomed.txt");
    Tools.Run del = s3cmdV2("del", V2 + "/doomed.txt");
    assertThat(del.output()).as(del::describe).contains("delete: '" + V2 + "/doomed.txt'");
    assertThat(s3cmdV2("ls", V2).output()).doesNotContain("doomed.txt").contains("small.txt");
  }

  @Test
  @Order(11)
  void s3cmd_setaclAclPublic_letsUnsignedClientsRead_andAclPrivateTakesItBack() throws Exception {
    byte[] small = Files.readAllBytes(scratch.resolve("up-v2/small.txt"));
    assertThat(unsignedGet("/s3cmd-v2/small.txt").status()).isEqualTo(403);
    // setacl reads the ACL (GetObjectAcl), adds the AllUsers READ grant and PUTs the policy back
    Tools.Run pub = s3cmdV2("setacl", "--acl-public", V2 + "/small.txt");
    assertThat(pub.output()).as(pub::describe).contains(V2 + "/small.txt: ACL set to Public");
    Http.Reply read = unsignedGet("/s3cmd-v2/small.txt");
    assertThat(read.status()).as(read.bodyText()).isEqualTo(200);
    assertThat(read.body()).isEqualTo(small);
    assertThat(s3cmdV2("info", V2 + "/small.txt").output()).contains("*anon*: READ");
    assertThat(unsignedGet("/s3cmd-v2/big.bin").status()).as("another object stays private").isEqualTo(403);
    assertThat(unsignedGet("/s3cmd-v2").status()).as("the bucket stays private").isEqualTo(403);

    Tools.Run bucket = s3cmdV2("setacl", "--acl-public", V2);
    assertThat(bucket.output()).as(bucket::describe).contains("ACL set to Public");
    Http.Reply list = unsignedGet("/s3cmd-v2?list-type=2");
    assertThat(list.status()).as(list.bodyText()).isEqualTo(200);
    assertThat(list.bodyText()).contains("<Key>small.txt</Key>").contains("<Key>big.bin</Key>");

    // SigV4 (the default configuration) sets ACLs the same way
    s3cmd("setacl", "--acl-private", V2 + "/small.txt");
    Http.Reply denied = unsignedGet("/s3cmd-v2/small.txt");
    assertThat(denied.status()).as(denied.bodyText()).isEqualTo(403);
    assertThat(denied.bodyText()).contains("<Code>AccessDenied</Code>");
    s3cmdV2("setacl", "--acl-private", V2);
    assertThat(unsignedGet("/s3cmd-v2?list-type=2").status()).isEqualTo(403);
    assertThat(s3cmdV2("info", V2 + "/small.txt").output()).doesNotContain("*anon*");
  }

  @Test
  @Order(12)
  void s3cmd_signurl_sigV2PresignedUrl_readsTheObjectByteExact_andATamperedOrExpiredOneIs403() throws Exception {
    Tools.Run sign = s3cmdV2("signurl", V2 + "/big.bin", "+600");
    String url = sign.output().strip();
    assertThat(url).as(sign::describe).startsWith(cluster.endpoint() + "/s3cmd-v2/big.bin?")
        .contains("AWSAccessKeyId=").contains("Signature=");
    Http.Reply got = Http.sendHashing(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(url)).GET());
    assertThat(got.status()).isEqualTo(200);
    assertThat(got.sha256()).isEqualTo(Tools.sha256(scratch.resolve("up-v2/big.bin")));

    String tampered = url.replace("/big.bin?", "/small.txt?");
    Http.Reply other = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(tampered)).GET());
    assertThat(other.status()).as(other.bodyText()).isEqualTo(403);
    assertThat(other.bodyText()).contains("<Code>SignatureDoesNotMatch</Code>");
    long past = java.time.Instant.now().getEpochSecond() - 60;
    String expired = s3cmdV2("signurl", V2 + "/big.bin", Long.toString(past)).output().strip();
    Http.Reply late = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(expired)).GET());
    assertThat(late.status()).as(late.bodyText()).isEqualTo(403);
    assertThat(late.bodyText()).contains("<Code>AccessDenied</Code>");
    Tools.Run rb = s3cmdV2("rb", "--recursive", "--force", V2);
    assertThat(rb.output()).as(rb::describe).contains("Bucket '" + V2 + "/' removed");
  }

  /** The S3 ETag of a multipart upload in {@code chunk}-byte parts: MD5 of the parts' MD5s, "-" and the count. */
  static String multipartETag(Path file, int chunk) throws Exception {
    byte[] data = Files.readAllBytes(file);
    java.io.ByteArrayOutputStream md5s = new java.io.ByteArrayOutputStream();
    int parts = 0;
    for (int off = 0; off < data.length; off += chunk, parts++) {
      md5s.write(java.security.MessageDigest.getInstance("MD5")
          .digest(java.util.Arrays.copyOfRange(data, off, Math.min(data.length, off + chunk))));
    }
    return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("MD5")
        .digest(md5s.toByteArray())) + "-" + parts;
  }
}
