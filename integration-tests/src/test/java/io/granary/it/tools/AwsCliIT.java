package io.granary.it.tools;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.it.support.Resources;
import io.granary.it.support.TestCluster;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The AWS CLI ({@code aws}, awscli from PyPI) against the S3 API of a 2-target cluster, configured only through
 * the environment and {@code --endpoint-url}. {@code aws s3 cp} is multipart above 8 MiB in 8 MiB parts, for
 * uploads and for s3-to-s3 copies (UploadPartCopy). The tests run in order on one bucket. The AWS CLI missing is a
 * failure, not a skip: {@code ./run-tests} installs it.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AwsCliIT {
  private static final String BUCKET = "awscli-it";
  private static final String S3 = "s3://" + BUCKET;
  private static final int PART = 8 << 20;
  private static final int BIG = 2 * PART + 3_000_000; // three parts, the last one short
  private static final ObjectMapper JSON = new ObjectMapper();

  private static TestCluster cluster;
  private static Path scratch;
  private static Map<String, String> env;
  private static Path big;

  @BeforeAll
  static void start() throws Exception {
    scratch = Tools.scratch("aws-cli");
    Tools.requireInstalled(scratch, "the AWS CLI (aws)", "python3 -m pip install awscli", List.of("aws", "--version"));
    cluster = TestCluster.start("awscli", 2);
    env = new HashMap<>();
    env.put("AWS_ACCESS_KEY_ID", cluster.credentials().accessKey());
    env.put("AWS_SECRET_ACCESS_KEY", cluster.credentials().secretKey());
    env.put("AWS_DEFAULT_REGION", "us-east-1");
    // no profile or config file of the machine: only the environment and the arguments count
    env.put("AWS_CONFIG_FILE", scratch.resolve("no-aws-config").toString());
    env.put("AWS_SHARED_CREDENTIALS_FILE", scratch.resolve("no-aws-credentials").toString());
    env.put("AWS_PAGER", "");
    big = Tools.file(scratch.resolve("up/big.bin"), 31, BIG);
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(cluster);
  }

  private static List<String> command(String... args) {
    List<String> cmd = new ArrayList<>(List.of("aws", "--endpoint-url", cluster.endpoint(), "--output", "json"));
    cmd.addAll(List.of(args));
    return cmd;
  }

  private static Tools.Run aws(String... args) throws Exception {
    return Tools.ok(scratch, env, command(args));
  }

  private static Tools.Run awsFailing(String... args) throws Exception {
    Tools.Run r = Tools.run(scratch, env, Tools.TIMEOUT, command(args));
    assertThat(r.timedOut()).as(r::describe).isFalse();
    assertThat(r.exit()).as(r::describe).isNotZero();
    return r;
  }

  private static JsonNode json(Tools.Run r) throws Exception {
    return JSON.readTree(r.output().substring(r.output().indexOf('{')));
  }

  /** The CRC32 of {@code data[from, to)}, as S3 writes it: the 4 bytes big-endian, base64. */
  static String crc32(byte[] data, int from, int to) {
    CRC32 c = new CRC32();
    c.update(data, from, to - from);
    return Base64.getEncoder().encodeToString(ByteBuffer.allocate(4).putInt((int) c.getValue()).array());
  }

  @Test
  @Order(1)
  void awsS3Cp_uploadsInThreeParts_withCrc32PartChecksums_andDownloadsByteExact() throws Exception {
    aws("s3", "mb", S3);
    Tools.Run cp = aws("s3", "cp", "--only-show-errors", "--checksum-algorithm", "CRC32", big.toString(),
        S3 + "/big.bin");
    assertThat(cp.output()).as(cp::describe).isBlank();
    Path got = scratch.resolve("down/big.bin");
    aws("s3", "cp", "--only-show-errors", S3 + "/big.bin", got.toString());
    assertThat(Tools.sha256(got)).isEqualTo(Tools.sha256(big));
    JsonNode head = json(aws("s3api", "head-object", "--bucket", BUCKET, "--key", "big.bin"));
    assertThat(head.path("ETag").asText()).isEqualTo("\"" + S3cmdIT.multipartETag(big, PART) + "\"");
    assertThat(head.path("ContentLength").asLong()).isEqualTo(BIG);
  }

  @Test
  @Order(2)
  void awsS3Cp_s3ToS3_isAManagedCopyInUploadPartCopies_byteExact() throws Exception {
    Tools.Run cp = aws("s3", "cp", "--debug", S3 + "/big.bin", S3 + "/copies/big.bin");
    assertThat(cp.output()).as(cp::describe).contains("OperationModel(name=UploadPartCopy)")
        .containsPattern("'x-amz-copy-source-range': 'bytes=" + 2 * PART + "-" + (BIG - 1) + "'")
        .contains("copy: " + S3 + "/big.bin to " + S3 + "/copies/big.bin");
    Path got = scratch.resolve("down/copy.bin");
    aws("s3", "cp", "--only-show-errors", S3 + "/copies/big.bin", got.toString());
    assertThat(Tools.sha256(got)).isEqualTo(Tools.sha256(big));
    Tools.Run ls = aws("s3", "ls", S3 + "/copies/");
    assertThat(ls.output()).as(ls::describe).containsPattern("(?m) " + BIG + " big\\.bin$");
  }

  @Test
  @Order(3)
  void s3apiPutObject_ifNoneMatchStar_twice_storesTheFirst_andRefusesTheSecondWith412() throws Exception {
    Path first = Files.writeString(scratch.resolve("up/first.txt"), "first writer");
    Path second = Files.writeString(scratch.resolve("up/second.txt"), "second writer");
    JsonNode put = json(aws("s3api", "put-object", "--bucket", BUCKET, "--key", "once.txt", "--body",
        first.toString(), "--if-none-match", "*"));
    assertThat(put.path("ETag").asText()).isEqualTo("\"" + Tools.md5(first) + "\"");
    Tools.Run again = awsFailing("s3api", "put-object", "--bucket", BUCKET, "--key", "once.txt", "--body",
        second.toString(), "--if-none-match", "*");
    assertThat(again.output()).as(again::describe)
        .contains("An error occurred (PreconditionFailed) when calling the PutObject operation");
    Path got = scratch.resolve("down/once.txt");
    aws("s3", "cp", "--only-show-errors", S3 + "/once.txt", got.toString());
    assertThat(Files.readString(got)).isEqualTo("first writer");
  }

  @Test
  @Order(4)
  void s3apiGetObjectAttributes_answersETagSizeChecksumAndEachPartWithItsChecksum() throws Exception {
    byte[] data = Files.readAllBytes(big);
    JsonNode a = json(aws("s3api", "get-object-attributes", "--bucket", BUCKET, "--key", "big.bin",
        "--object-attributes", "ETag", "Checksum", "ObjectParts", "StorageClass", "ObjectSize"));
    assertThat(a.path("ETag").asText()).isEqualTo(S3cmdIT.multipartETag(big, PART));
    assertThat(a.path("ObjectSize").asLong()).isEqualTo(BIG);
    assertThat(a.path("StorageClass").asText()).isEqualTo("STANDARD");
    assertThat(a.path("Checksum").path("ChecksumType").asText()).isEqualTo("COMPOSITE");
    assertThat(a.path("Checksum").path("ChecksumCRC32").asText()).endsWith("-3");
    JsonNode parts = a.path("ObjectParts");
    assertThat(parts.path("TotalPartsCount").asInt()).as(a.toString()).isEqualTo(3);
    assertThat(parts.path("IsTruncated").asBoolean()).isFalse();
    List<String> got = new ArrayList<>();
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      JsonNode p = parts.path("Parts").path(i);
      int from = i * PART;
      int to = Math.min(BIG, from + PART);
      got.add(p.path("PartNumber").asInt() + " " + p.path("Size").asLong() + " " + p.path("ChecksumCRC32").asText());
      expected.add((i + 1) + " " + (to - from) + " " + crc32(data, from, to));
    }
    assertThat(got).as(a.toString()).isEqualTo(expected);

    // a page of one part, after part 1
    JsonNode page = json(aws("s3api", "get-object-attributes", "--bucket", BUCKET, "--key", "big.bin",
        "--object-attributes", "ObjectParts", "--max-parts", "1", "--part-number-marker", "1"));
    assertThat(page.path("ObjectParts").path("Parts")).as(page.toString()).hasSize(1);
    assertThat(page.path("ObjectParts").path("Parts").path(0).path("ChecksumCRC32").asText())
        .isEqualTo(crc32(data, PART, 2 * PART));
    assertThat(page.path("ObjectParts").path("IsTruncated").asBoolean()).isTrue();

    // a single-PUT object: its checksum, no parts
    JsonNode once = json(aws("s3api", "get-object-attributes", "--bucket", BUCKET, "--key", "once.txt",
        "--object-attributes", "ETag", "ObjectSize", "ObjectParts"));
    assertThat(once.path("ObjectSize").asLong()).isEqualTo("first writer".length());
    assertThat(once.has("ObjectParts")).as(once.toString()).isFalse();
  }

  @Test
  @Order(5)
  void s3apiHeadAndGetObject_withPartNumberAndChecksumMode_answerThatPartsChecksum() throws Exception {
    byte[] data = Files.readAllBytes(big);
    JsonNode head = json(aws("s3api", "head-object", "--bucket", BUCKET, "--key", "big.bin", "--part-number", "3",
        "--checksum-mode", "ENABLED"));
    assertThat(head.path("ContentLength").asLong()).isEqualTo(BIG - 2L * PART);
    assertThat(head.path("PartsCount").asInt()).isEqualTo(3);
    assertThat(head.path("ChecksumCRC32").asText()).as(head.toString()).isEqualTo(crc32(data, 2 * PART, BIG));
    assertThat(head.path("ChecksumType").asText()).isEqualTo("COMPOSITE");

    Path part = scratch.resolve("down/part2.bin");
    JsonNode get = json(aws("s3api", "get-object", "--bucket", BUCKET, "--key", "big.bin", "--part-number", "2",
        "--checksum-mode", "ENABLED", part.toString()));
    assertThat(get.path("ChecksumCRC32").asText()).as(get.toString()).isEqualTo(crc32(data, PART, 2 * PART));
    assertThat(Files.readAllBytes(part)).isEqualTo(Arrays.copyOfRange(data, PART, 2 * PART));

    JsonNode whole = json(aws("s3api", "head-object", "--bucket", BUCKET, "--key", "big.bin", "--checksum-mode",
        "ENABLED"));
    assertThat(whole.path("ChecksumCRC32").asText()).endsWith("-3");
  }

  @Test
  @Order(6)
  void awsS3Rm_recursive_andRb_removeEverything() throws Exception {
    aws("s3", "rm", "--only-show-errors", "--recursive", S3);
    Tools.Run rb = aws("s3", "rb", S3);
    assertThat(rb.output()).as(rb::describe).contains("remove_bucket: " + BUCKET);
    Tools.Run ls = aws("s3", "ls");
    assertThat(ls.output()).as(ls::describe).doesNotContain(BUCKET);
  }
}
