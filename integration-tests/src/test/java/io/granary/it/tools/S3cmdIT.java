package io.granary.it.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.it.support.TestCluster;
import io.granary.it.support.Resources;
import java.net.URI;
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
 * for an S3-compatible store. The tests run in order on one bucket. s3cmd missing is a failure, not a skip:
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
        "signature_v2 = False",
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
