package io.granary.it.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.it.support.TestCluster;
import io.granary.it.support.Resources;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * boto3, the AWS SDK for Python, against the S3 API of a 2-target cluster. {@code tools/boto3_suite.py} runs
 * once (python3 with the cluster's endpoint and keys) and prints one PASS or FAIL line per check; each test here
 * asserts its checks passed, and shows the script's whole output when one did not. Most checks sign with SigV4
 * ({@code Config(signature_version="s3v4")}); the SigV2 ones use boto3 without a Config, whose presigned URLs for a
 * custom endpoint are SigV2, and {@code signature_version="s3"} for SigV2 headers.
 *
 * <p>python3 and boto3 missing is a failure, not a skip: {@code .ci/run} installs boto3.
 */
class Boto3IT {
  private static final Duration SUITE_TIMEOUT = Duration.ofSeconds(180);
  /** Every check of boto3_suite.py, in its order. */
  private static final List<String> CHECKS = List.of("create_bucket", "create_existing_bucket_already_owned",
      "list_buckets", "put_get_object_byte_exact_with_metadata_and_content_type", "head_object",
      "get_object_range_and_missing_key", "empty_object", "conditional_get", "content_md5_mismatch_bad_digest",
      "unicode_and_special_character_keys", "list_objects_v2_prefix_delimiter",
      "paginator_1500_keys_each_exactly_once", "upload_file_multipart_etag_dash4", "download_file_byte_exact",
      "multipart_low_level_list_parts_and_abort", "presigned_get_s3v4_byte_exact",
      "presigned_get_wrong_signature_403", "presigned_put_s3v4", "presigned_get_expired_403",
      "presigned_get_default_sigv2_byte_exact", "presigned_put_default_sigv2",
      "presigned_get_sigv2_wrong_signature_or_expired_403", "header_auth_sigv2_put_get_delete", "copy_object",
      "managed_copy_multipart_upload_part_copy", "standard_headers_stored", "response_header_overrides",
      "get_object_part_number", "delete_objects", "wrong_secret_signature_does_not_match",
      "unsupported_subresource_not_implemented", "canned_acls_and_unsigned_read", "empty_and_delete_bucket");

  private static TestCluster cluster;
  private static Tools.Run suite;

  @BeforeAll
  static void runSuite() throws Exception {
    Path scratch = Tools.scratch("boto3-client");
    Tools.requireInstalled(scratch, "python3", "apt-get install python3", List.of("python3", "--version"));
    Tools.requireInstalled(scratch, "boto3 (the AWS SDK for Python)", "python3 -m pip install boto3",
        List.of("python3", "-c", "import boto3, botocore; print('boto3', boto3.__version__)"));
    cluster = TestCluster.start("boto3", 2);
    Path script = Tools.resource("/tools/boto3_suite.py", scratch.resolve("boto3_suite.py"));
    suite = Tools.run(scratch, Map.of(
            // no profile or config file of the machine: only the arguments count
            "AWS_CONFIG_FILE", scratch.resolve("no-aws-config").toString(),
            "AWS_SHARED_CREDENTIALS_FILE", scratch.resolve("no-aws-credentials").toString()),
        SUITE_TIMEOUT, List.of("python3", "-u", script.toString(), cluster.endpoint(),
            cluster.credentials().accessKey(), cluster.credentials().secretKey(), scratch.resolve("files").toString()));
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(cluster);
  }

  /** Each check ran and printed PASS. */
  private static void passed(String... checks) {
    assertThat(suite).as("the suite did not run").isNotNull();
    for (String check : checks) {
      assertThat(CHECKS).contains(check);
      Optional<String> line = suite.output().lines()
          .filter(l -> l.equals("PASS " + check) || l.startsWith("FAIL " + check + ":")).findFirst();
      assertThat(line).as("check %s did not report\n%s", check, suite.describe()).isPresent();
      assertThat(line.get()).as("%s\n\n%s", line.get(), suite.describe()).isEqualTo("PASS " + check);
    }
  }

  @Test
  void boto3_createsABucket_andListBucketsShowsIt() {
    passed("create_bucket", "list_buckets");
  }

  @Test
  void boto3_putObject_getsItBackByteExact_withMetadataContentTypeAndMd5ETag() {
    passed("put_get_object_byte_exact_with_metadata_and_content_type", "head_object");
  }

  @Test
  void boto3_getObject_withRange_returnsTheBytes_andAMissingKeyIsNoSuchKey() {
    passed("get_object_range_and_missing_key");
  }

  @Test
  void boto3_unicodeAndReservedCharacterKeys_roundTripAndListDecoded() {
    passed("unicode_and_special_character_keys");
  }

  @Test
  void boto3_listObjectsV2_withPrefixAndDelimiter_groupsCommonPrefixes() {
    passed("list_objects_v2_prefix_delimiter");
  }

  @Test
  void boto3_paginator_over1500Keys_listsEveryKeyExactlyOnce_inOrder() {
    passed("paginator_1500_keys_each_exactly_once");
  }

  @Test
  void boto3_uploadFile_of25MiB_isMultipart_withETagEndingDash4_andDownloadFileIsByteExact() {
    passed("upload_file_multipart_etag_dash4", "download_file_byte_exact");
  }

  @Test
  void boto3_lowLevelMultipart_listsPartsAndUploads_andAbortLeavesNothing() {
    passed("multipart_low_level_list_parts_and_abort");
  }

  @Test
  void boto3_presignedGet_s3v4_isByteExact_andAWrongSignatureIs403() {
    passed("presigned_get_s3v4_byte_exact", "presigned_get_wrong_signature_403");
  }

  @Test
  void boto3_defaultPresignedUrls_signatureVersion2_getAndPut_andWrongOrExpiredAre403() {
    passed("presigned_get_default_sigv2_byte_exact", "presigned_put_default_sigv2",
        "presigned_get_sigv2_wrong_signature_or_expired_403");
  }

  @Test
  void boto3_signatureVersion2Headers_putGetDelete_andAWrongSecretIsSignatureDoesNotMatch() {
    passed("header_auth_sigv2_put_get_delete");
  }

  @Test
  void boto3_copyObject_copiesBytes_keepingOrReplacingMetadata() {
    passed("copy_object");
  }

  @Test
  void boto3_managedCopy_of12MiB_above5MiBThreshold_copiesInThreeUploadPartCopies_byteExact() {
    passed("managed_copy_multipart_upload_part_copy");
  }

  @Test
  void boto3_deleteObjects_deletesEveryKey_thenTheEmptiedBucketIsDeleted() {
    passed("delete_objects", "empty_and_delete_bucket");
  }

  @Test
  void boto3_wrongSecret_isSignatureDoesNotMatch_andStoresNothing() {
    passed("wrong_secret_signature_does_not_match");
  }

  @Test
  void boto3_unsupportedSubresource_isNotImplemented501() {
    passed("unsupported_subresource_not_implemented");
  }

  @Test
  void boto3_cannedAcls_setAndReadBack_andUnsignedReadsOnlyPublicRead() {
    passed("canned_acls_and_unsigned_read");
  }

  @Test
  void boto3_emptyObject_conditionalGet_andAWrongContentMd5_behaveAsS3() {
    passed("create_existing_bucket_already_owned", "empty_object", "conditional_get",
        "content_md5_mismatch_bad_digest");
  }

  @Test
  void boto3_presignedPut_s3v4_storesTheBody_andAnExpiredPresignedGetIs403() {
    passed("presigned_put_s3v4", "presigned_get_expired_403");
  }

  @Test
  void boto3_putObject_keepsCacheControlContentDispositionLanguageAndEncoding() {
    passed("standard_headers_stored");
  }

  @Test
  void boto3_getObject_responseHeaderOverrides_replaceTheStoredHeaders() {
    passed("response_header_overrides");
  }

  @Test
  void boto3_getObject_withPartNumber_returnsThatPart_andThePartsCount() {
    passed("get_object_part_number");
  }

  @Test
  void boto3_suite_ranEveryCheck_andFailedNone() {
    Set<String> reported = new LinkedHashSet<>();
    suite.output().lines().filter(l -> l.startsWith("PASS ") || l.startsWith("FAIL "))
        .forEach(l -> reported.add(l.substring(5).split(":", 2)[0]));
    assertThat(reported).as(suite.describe()).containsExactlyElementsOf(CHECKS);
    assertThat(suite.timedOut()).as(suite.describe()).isFalse();
    List<String> failed = suite.output().lines().filter(l -> l.startsWith("FAIL "))
        .map(l -> l.substring(5).split(":", 2)[0]).toList();
    assertThat(failed).as(suite.describe()).isEmpty();
    assertThat(suite.exit()).as(suite.describe()).isZero();
    assertThat(suite.output()).as(suite.describe()).contains("SUMMARY passed=" + CHECKS.size() + " failed=0");
  }
}
