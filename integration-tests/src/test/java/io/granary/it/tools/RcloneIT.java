package io.granary.it.tools;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.it.support.TestCluster;
import io.granary.it.support.Resources;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * rclone against the S3 API of a 2-target cluster, configured only through environment variables (provider
 * "Other", path-style) with an empty config file. Uploads above 5 MiB are multipart in 5 MiB chunks. The tests
 * run in order on one bucket. rclone missing is a failure, not a skip: {@code .ci/run} installs it.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RcloneIT {
  private static final String BUCKET = "rclone-it";
  private static final String REMOTE = "granary:" + BUCKET;
  private static final int BIG = 20 << 20;
  private static final ObjectMapper JSON = new ObjectMapper();

  private static TestCluster cluster;
  private static Path scratch;
  private static Map<String, String> env;
  private static Map<String, String> expected; // the local tree: relative path -> sha256

  @BeforeAll
  static void start() throws Exception {
    scratch = Tools.scratch("rclone-client");
    Tools.requireInstalled(scratch, "rclone", "apt-get install rclone", List.of("rclone", "version"));
    cluster = TestCluster.start("rclone", 2);
    Path conf = Files.writeString(scratch.resolve("rclone.conf"), "");
    env = new HashMap<>();
    env.put("RCLONE_CONFIG", conf.toString());
    env.put("RCLONE_CONFIG_GRANARY_TYPE", "s3");
    env.put("RCLONE_CONFIG_GRANARY_PROVIDER", "Other");
    env.put("RCLONE_CONFIG_GRANARY_ENDPOINT", cluster.endpoint());
    env.put("RCLONE_CONFIG_GRANARY_ACCESS_KEY_ID", cluster.credentials().accessKey());
    env.put("RCLONE_CONFIG_GRANARY_SECRET_ACCESS_KEY", cluster.credentials().secretKey());
    env.put("RCLONE_CONFIG_GRANARY_REGION", "us-east-1");
    env.put("RCLONE_CONFIG_GRANARY_FORCE_PATH_STYLE", "true");
    env.put("HOME", scratch.toString()); // rclone's cache and any default config stay in the scratch directory
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(cluster);
  }

  private static Tools.Run rclone(String... args) throws Exception {
    return Tools.ok(scratch, env, command(args));
  }

  private static List<String> command(String... args) {
    List<String> cmd = new ArrayList<>(List.of("rclone", "--s3-upload-cutoff", "5M", "--s3-chunk-size", "5M",
        "--retries", "1", "--low-level-retries", "2", "--contimeout", "10s", "--timeout", "60s"));
    cmd.addAll(List.of(args));
    return cmd;
  }

  @Test
  @Order(1)
  void rclone_mkdir_createsTheBucket_thatLsdShows() throws Exception {
    rclone("mkdir", REMOTE);
    Tools.Run lsd = rclone("lsd", "granary:");
    assertThat(lsd.output()).as(lsd::describe).containsPattern("(?m) " + BUCKET + "$");
  }

  @Test
  @Order(2)
  void rclone_copy_uploadsATree_withA20MiBFileAsAFourPartUpload() throws Exception {
    Path local = scratch.resolve("tree");
    Tools.file(local.resolve("big/big.bin"), 7, BIG);
    expected = Tools.sampleTree(local, 200);
    Tools.Run copy = rclone("copy", "-vv", local.toString(), REMOTE + "/tree");
    assertThat(copy.output()).as(copy::describe).containsPattern("big\\.bin: multipart upload")
        .doesNotContain("ERROR");
    // The object's ETag, from a HEAD: MD5 of the parts' MD5s, "-4"
    Tools.Run head = rclone("lsjson", "--stat", "--dump", "headers", REMOTE + "/tree/big/big.bin");
    assertThat(head.output()).as(head::describe).containsPattern(Pattern.compile(
        "(?mi)^etag: \"" + S3cmdIT.multipartETag(local.resolve("big/big.bin"), 5 << 20) + "\"\\s*$"));
  }

  @Test
  @Order(3)
  void rclone_lsjson_and_ls_listEveryFile_withItsSizeAndMd5() throws Exception {
    Tools.Run lsjson = rclone("lsjson", "--recursive", "--files-only", "--hash", REMOTE + "/tree");
    Map<String, Long> sizes = new TreeMap<>();
    Map<String, String> md5s = new TreeMap<>();
    for (JsonNode e : JSON.readTree(lsjson.output().substring(lsjson.output().indexOf('[')))) {
      sizes.put(e.path("Path").asText(), e.path("Size").asLong());
      md5s.put(e.path("Path").asText(), e.path("Hashes").path("md5").asText());
    }
    Map<String, Long> localSizes = new TreeMap<>();
    Map<String, String> localMd5s = new TreeMap<>();
    for (String name : expected.keySet()) {
      Path p = scratch.resolve("tree").resolve(name);
      localSizes.put(name, Files.size(p));
      localMd5s.put(name, Tools.md5(p));
    }
    assertThat(sizes).as(lsjson::describe).isEqualTo(localSizes);
    assertThat(md5s).as(lsjson::describe).isEqualTo(localMd5s);

    Tools.Run ls = rclone("ls", REMOTE);
    for (String name : expected.keySet()) {
      assertThat(ls.output()).as(ls::describe).containsPattern("(?m)^\\s*"
          + Files.size(scratch.resolve("tree").resolve(name)) + " " + Pattern.quote("tree/" + name) + "$");
    }
  }

  @Test
  @Order(4)
  void rclone_lsf_inPagesOfThree_withListObjectsV1AndV2_listsEveryFileOnce() throws Exception {
    List<String> all = lsf("--s3-list-chunk", "1000");
    assertThat(all).hasSize(expected.size()).doesNotHaveDuplicates();
    for (String version : List.of("1", "2")) {
      for (String urlEncode : List.of("true", "false")) {
        List<String> paged = lsf("--s3-list-chunk", "3", "--s3-list-version", version, "--s3-list-url-encode",
            urlEncode);
        assertThat(paged).as("list version %s, url-encode %s", version, urlEncode).isEqualTo(all);
      }
    }
  }

  private static List<String> lsf(String... flags) throws Exception {
    List<String> args = new ArrayList<>(List.of("lsf", "--recursive", "--files-only"));
    args.addAll(List.of(flags));
    args.add(REMOTE + "/tree");
    Tools.Run r = rclone(args.toArray(String[]::new));
    return r.output().lines().filter(l -> !l.isBlank()).sorted().toList();
  }

  @Test
  @Order(5)
  void rclone_check_findsNoDifferences_andASecondCopyTransfersNothing() throws Exception {
    Tools.Run check = rclone("check", scratch.resolve("tree").toString(), REMOTE + "/tree");
    assertThat(check.output()).as(check::describe).contains("0 differences found")
        .contains(expected.size() + " matching files");
    Tools.Run download = rclone("check", "--download", scratch.resolve("tree").toString(), REMOTE + "/tree");
    assertThat(download.output()).as(download::describe).contains("0 differences found");
    Tools.Run again = rclone("copy", "-v", scratch.resolve("tree").toString(), REMOTE + "/tree");
    assertThat(again.output()).as(again::describe).contains("There was nothing to transfer");
  }

  @Test
  @Order(6)
  void rclone_copyBack_isByteExact_andCatWithOffsetReadsARange() throws Exception {
    Path back = scratch.resolve("tree-back");
    rclone("copy", REMOTE + "/tree", back.toString());
    assertThat(Tools.tree(back)).isEqualTo(expected);
    // a ranged GET; rclone prints nothing else when it succeeds, so the log holds exactly the bytes
    Tools.Run cat = rclone("cat", "--offset", "1000000", "--count", "4096", REMOTE + "/tree/a/b/c/deep file.bin");
    byte[] local = Files.readAllBytes(scratch.resolve("tree/a/b/c/deep file.bin"));
    assertThat(Files.readAllBytes(cat.log())).as(cat::describe)
        .isEqualTo(java.util.Arrays.copyOfRange(local, 1_000_000, 1_004_096));
  }

  @Test
  @Order(7)
  void rclone_sync_deletesRemoteFilesGoneLocally() throws Exception {
    Path local = scratch.resolve("tree");
    Files.delete(local.resolve("a/b/sibling-1.txt"));
    rclone("sync", local.toString(), REMOTE + "/tree");
    Tools.Run ls = rclone("ls", REMOTE + "/tree");
    assertThat(ls.output()).as(ls::describe).doesNotContain("sibling-1.txt").contains("sibling-2.txt");
    rclone("check", local.toString(), REMOTE + "/tree");
  }

  @Test
  @Order(8)
  void rclone_serverSideCopyAndMove_keepBytesAndMd5_andMoveRemovesTheSource() throws Exception {
    Tools.Run copy = rclone("copyto", "-v", REMOTE + "/tree/big/big.bin", REMOTE + "/server/big-copy.bin");
    assertThat(copy.output()).as(copy::describe).contains("server-side copy");
    String moved = "ünïcødé dir/naïve café.txt";
    Tools.Run move = rclone("moveto", "-v", REMOTE + "/tree/" + moved, REMOTE + "/server/moved ü.txt");
    assertThat(move.output()).as(move::describe).contains("server-side copy");
    Tools.Run md5 = rclone("md5sum", REMOTE + "/server");
    assertThat(md5.output()).as(md5::describe)
        .contains(Tools.md5(scratch.resolve("tree/big/big.bin")) + "  big-copy.bin")
        .contains(Tools.md5(scratch.resolve("tree").resolve(moved)) + "  moved ü.txt");
    Path got = scratch.resolve("server-copy.bin");
    rclone("copyto", REMOTE + "/server/big-copy.bin", got.toString());
    assertThat(Tools.sha256(got)).isEqualTo(expected.get("big/big.bin"));
    Tools.Run ls = rclone("lsf", "--recursive", REMOTE + "/tree");
    assertThat(ls.output()).as(ls::describe).doesNotContain("naïve café.txt");
    Files.delete(scratch.resolve("tree").resolve(moved)); // the local tree mirrors the remote one again
  }

  @Test
  @Order(9)
  void rclone_serverSideCopy_aboveTheCopyCutoff_isAMultipartUploadPartCopy_andCheckFindsTheCopyEqual()
      throws Exception {
    // above --s3-copy-cutoff rclone copies in parts: CreateMultipartUpload, one UploadPartCopy per 5 MiB range
    Tools.Run copy = rclone("copy", "-vv", "--dump", "headers", "--s3-copy-cutoff", "5M", REMOTE + "/tree/big",
        REMOTE + "/part-copied");
    assertThat(copy.output()).as(copy::describe).contains("big.bin: Copied (server-side copy)")
        .containsPattern("(?i)x-amz-copy-source-range: bytes=15728640-20971519")
        .contains("partNumber=4&uploadId=").doesNotContain("ERROR");
    Path local = scratch.resolve("tree/big");
    Tools.Run check = rclone("check", local.toString(), REMOTE + "/part-copied");
    assertThat(check.output()).as(check::describe).contains("0 differences found").contains("1 matching files");
    Tools.Run download = rclone("check", "--download", local.toString(), REMOTE + "/part-copied");
    assertThat(download.output()).as(download::describe).contains("0 differences found")
        .contains("1 matching files");
    Tools.Run head = rclone("lsjson", "--stat", "--dump", "headers", REMOTE + "/part-copied/big.bin");
    assertThat(head.output()).as(head::describe).containsPattern(Pattern.compile(
        "(?mi)^etag: \"" + S3cmdIT.multipartETag(local.resolve("big.bin"), 5 << 20) + "\"\\s*$"));
    rclone("purge", REMOTE + "/part-copied");
  }

  @Test
  @Order(10)
  void rclone_delete_thenPurge_removeTheFilesAndTheBucket() throws Exception {
    rclone("delete", "--include", "*.txt", REMOTE + "/tree");
    Tools.Run ls = rclone("ls", REMOTE + "/tree");
    assertThat(ls.output()).as(ls::describe).doesNotContain(".txt").contains("big.bin").contains("zero.bin");
    rclone("purge", REMOTE);
    Tools.Run lsd = rclone("lsd", "granary:");
    assertThat(lsd.output()).as(lsd::describe).doesNotContain(BUCKET);
  }
}
