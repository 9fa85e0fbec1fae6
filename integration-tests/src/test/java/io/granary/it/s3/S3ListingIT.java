package io.granary.it.s3;

import static io.granary.it.s3.S3Support.assertS3Error;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.granary.it.support.Http;
import io.granary.it.support.TestCluster;
import io.granary.it.support.Resources;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.Bucket;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.EncodingType;
import software.amazon.awssdk.services.s3.model.ListBucketsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Listing and bucket operations through the S3 API of a 2-target cluster (so every listing is merged from two
 * targets): ListObjectsV2 and V1 with prefix, delimiter, small pages, start-after, marker and encoding-type=url
 * return every key exactly once in UTF-8 byte order, as S3 does; bucket create, head, location, list and delete
 * answer as S3 does.
 */
class S3ListingIT {
  private static final String BUCKET = "s3listing";
  private static final String ENC_BUCKET = "s3listing-enc";
  /** UTF-8 byte order, the order S3 lists keys in (not Java's UTF-16 order: U+FF61 sorts before U+1F600). */
  private static final Comparator<String> UTF8 = (a, b) ->
      Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  private static final List<String> KEYS = new ArrayList<>();
  /** Keys with characters XML 1.0 cannot carry, or that URL encodings treat specially. */
  private static final List<String> ENC_KEYS = List.of("enc/\u0001bell", "enc/with space", "enc/plus+sign",
      "enc/new\nline", "enc/percent%20literal", "enc/tab\tbed", "enc/ünï");

  private static TestCluster cluster;
  private static S3Client s3;
  private static S3AsyncClient async;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("s3listing", 2);
    s3 = S3Support.sync(cluster);
    async = S3Support.async(cluster);
    s3.createBucket(b -> b.bucket(BUCKET));
    s3.createBucket(b -> b.bucket(ENC_BUCKET));
    KEYS.addAll(List.of("docs/readme.md", "docs/guide/intro.md", "docs/guide/setup.md", "u/z\uFF61", "u/z😀", "u/é",
        "u/e", "u/E", "u/~", "u/a b", "u/a+b", "u/a%b", "u/日本語"));
    for (int i = 0; i < 20; i++) {
      KEYS.add(String.format("photos/2023/img-%03d.jpg", i));
    }
    for (int i = 0; i < 25; i++) {
      KEYS.add(String.format("photos/2024/img-%03d.jpg", i));
    }
    for (int i = 0; i < 10; i++) {
      KEYS.add(String.format("top-%02d.txt", i));
    }
    List<CompletableFuture<?>> puts = new ArrayList<>();
    for (String k : KEYS) {
      puts.add(async.putObject(b -> b.bucket(BUCKET).key(k), AsyncRequestBody.fromString(k)));
    }
    for (String k : ENC_KEYS) {
      puts.add(async.putObject(b -> b.bucket(ENC_BUCKET).key(k), AsyncRequestBody.fromString(k)));
    }
    CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new)).join();
    KEYS.sort(UTF8);
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(s3, async, cluster);
  }

  private static List<String> keys(List<S3Object> contents) {
    return contents.stream().map(S3Object::key).toList();
  }

  @Test
  void listV2_smallPages_followingContinuationTokens_returnEveryKeyOnce_inUtf8ByteOrder() {
    List<String> got = new ArrayList<>();
    String token = null;
    int pages = 0;
    do {
      String t = token;
      ListObjectsV2Response page = s3.listObjectsV2(b -> b.bucket(BUCKET).maxKeys(7).continuationToken(t));
      assertThat(page.contents().size()).isLessThanOrEqualTo(7);
      assertThat(page.keyCount()).isEqualTo(page.contents().size());
      assertThat(page.maxKeys()).isEqualTo(7);
      got.addAll(keys(page.contents()));
      if (page.isTruncated()) {
        assertThat(page.nextContinuationToken()).isNotEmpty();
        assertThat(page.contents()).hasSize(7);
      } else {
        assertThat(page.nextContinuationToken()).isNull();
      }
      assertThat(page.continuationToken()).as("the token asked for is echoed").isEqualTo(t);
      token = page.isTruncated() ? page.nextContinuationToken() : null;
      assertThat(++pages).isLessThan(100);
    } while (token != null);
    assertThat(got).isEqualTo(KEYS);
    assertThat(pages).isEqualTo((KEYS.size() + 6) / 7);
  }

  @Test
  void listV2_sdkPaginator_returnsEveryKeyOnce_inUtf8ByteOrder_withSizesAndEtags() {
    List<S3Object> all = new ArrayList<>();
    s3.listObjectsV2Paginator(b -> b.bucket(BUCKET).maxKeys(10)).contents().forEach(all::add);
    assertThat(keys(all)).isEqualTo(KEYS);
    for (S3Object o : all) {
      assertThat(o.size()).as(o.key()).isEqualTo((long) o.key().getBytes(StandardCharsets.UTF_8).length);
      assertThat(S3Support.unquote(o.eTag())).as(o.key())
          .isEqualTo(S3Support.md5Hex(o.key().getBytes(StandardCharsets.UTF_8)));
      assertThat(o.lastModified()).isNotNull();
    }
    // The async paginator sees the same.
    List<String> viaAsync = new ArrayList<>();
    async.listObjectsV2Paginator(b -> b.bucket(BUCKET).maxKeys(13)).contents().subscribe(o -> viaAsync.add(o.key())).join();
    assertThat(viaAsync).isEqualTo(KEYS);
  }

  @Test
  void listV2_prefix_returnsOnlyMatchingKeys() {
    List<String> got = keys(s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("photos/2024/")).contents());
    assertThat(got).isEqualTo(KEYS.stream().filter(k -> k.startsWith("photos/2024/")).toList()).hasSize(25);
    assertThat(s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("nothing/here/")).contents()).isEmpty();
    ListObjectsV2Response none = s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("nothing/here/"));
    assertThat(none.keyCount()).isZero();
    assertThat(none.isTruncated()).isFalse();
  }

  @Test
  void listV2_delimiter_rollsUpCommonPrefixes() {
    ListObjectsV2Response root = s3.listObjectsV2(b -> b.bucket(BUCKET).delimiter("/"));
    assertThat(root.commonPrefixes()).extracting(CommonPrefix::prefix).containsExactly("docs/", "photos/", "u/");
    assertThat(keys(root.contents())).isEqualTo(KEYS.stream().filter(k -> !k.contains("/")).toList()).hasSize(10);
    assertThat(root.keyCount()).isEqualTo(13);

    ListObjectsV2Response photos = s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("photos/").delimiter("/"));
    assertThat(photos.commonPrefixes()).extracting(CommonPrefix::prefix).containsExactly("photos/2023/", "photos/2024/");
    assertThat(photos.contents()).isEmpty();

    ListObjectsV2Response docs = s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("docs/").delimiter("/"));
    assertThat(docs.commonPrefixes()).extracting(CommonPrefix::prefix).containsExactly("docs/guide/");
    assertThat(keys(docs.contents())).containsExactly("docs/readme.md");
  }

  @Test
  void listV2_otherDelimiters_singleAndMultiCharacter_rollUpAtTheirFirstOccurrence() {
    ListObjectsV2Response dash = s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("top").delimiter("-"));
    assertThat(dash.commonPrefixes()).extracting(CommonPrefix::prefix).containsExactly("top-");
    assertThat(dash.contents()).isEmpty();
    ListObjectsV2Response multi = s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("photos/").delimiter("/img-00"));
    assertThat(multi.commonPrefixes()).extracting(CommonPrefix::prefix)
        .containsExactly("photos/2023/img-00", "photos/2024/img-00");
    assertThat(keys(multi.contents())).isEqualTo(KEYS.stream()
        .filter(k -> k.startsWith("photos/") && !k.contains("/img-00")).toList());
  }

  @Test
  void listV2_delimiterWithPageSizeOne_returnsEachPrefixAndKeyOnce() {
    List<String> items = new ArrayList<>();
    String token = null;
    int pages = 0;
    do {
      String t = token;
      ListObjectsV2Response page = s3.listObjectsV2(b -> b.bucket(BUCKET).delimiter("/").maxKeys(1).continuationToken(t));
      assertThat(page.contents().size() + page.commonPrefixes().size()).isEqualTo(1);
      page.commonPrefixes().forEach(p -> items.add(p.prefix()));
      items.addAll(keys(page.contents()));
      token = page.isTruncated() ? page.nextContinuationToken() : null;
      assertThat(++pages).isLessThan(100);
    } while (token != null);
    List<String> expected = new ArrayList<>(List.of("docs/", "photos/", "u/"));
    expected.addAll(KEYS.stream().filter(k -> !k.contains("/")).toList());
    expected.sort(UTF8);
    assertThat(items).isEqualTo(expected);
  }

  @Test
  void listV2_startAfter_returnsTheKeysAfterIt() {
    String after = "photos/2023/img-010.jpg";
    List<String> got = new ArrayList<>();
    s3.listObjectsV2Paginator(b -> b.bucket(BUCKET).startAfter(after).maxKeys(9)).contents()
        .forEach(o -> got.add(o.key()));
    assertThat(got).isEqualTo(KEYS.subList(KEYS.indexOf(after) + 1, KEYS.size()));
    // A start-after between keys and one past every key.
    assertThat(keys(s3.listObjectsV2(b -> b.bucket(BUCKET).startAfter("photos/2023/img-010.jpg0")).contents()))
        .startsWith("photos/2023/img-011.jpg");
    assertThat(s3.listObjectsV2(b -> b.bucket(BUCKET).startAfter("zzzz")).contents()).isEmpty();
    // start-after with a prefix.
    assertThat(keys(s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("top-").startAfter("top-07.txt")).contents()))
        .containsExactly("top-08.txt", "top-09.txt");
  }

  @Test
  void listV1_markerAndNextMarker_returnEveryKeyOnce() {
    // Without a delimiter S3 sends no NextMarker: clients continue from the last key.
    List<String> got = new ArrayList<>();
    String marker = null;
    int pages = 0;
    do {
      String m = marker;
      ListObjectsResponse page = s3.listObjects(b -> b.bucket(BUCKET).maxKeys(9).marker(m));
      assertThat(page.contents().size()).isLessThanOrEqualTo(9);
      got.addAll(keys(page.contents()));
      marker = page.isTruncated() ? page.contents().get(page.contents().size() - 1).key() : null;
      assertThat(++pages).isLessThan(100);
    } while (marker != null);
    assertThat(got).isEqualTo(KEYS);

    // With a delimiter the NextMarker leads on, also past a common prefix.
    List<String> items = new ArrayList<>();
    marker = null;
    pages = 0;
    do {
      String m = marker;
      ListObjectsResponse page = s3.listObjects(b -> b.bucket(BUCKET).delimiter("/").maxKeys(2).marker(m));
      page.commonPrefixes().forEach(p -> items.add(p.prefix()));
      items.addAll(keys(page.contents()));
      if (page.isTruncated()) {
        assertThat(page.nextMarker()).isNotEmpty();
      }
      marker = page.isTruncated() ? page.nextMarker() : null;
      assertThat(++pages).isLessThan(100);
    } while (marker != null);
    List<String> expected = new ArrayList<>(List.of("docs/", "photos/", "u/"));
    expected.addAll(KEYS.stream().filter(k -> !k.contains("/")).toList());
    expected.sort(UTF8);
    assertThat(items).isEqualTo(expected);

    // The SDK's V1 paginator... V1 has none; a marker mid-way returns the rest.
    assertThat(keys(s3.listObjects(b -> b.bucket(BUCKET).prefix("docs/").marker("docs/guide/intro.md")).contents()))
        .containsExactly("docs/guide/setup.md", "docs/readme.md");
  }

  @Test
  void encodingTypeUrl_listsKeysXmlCannotCarry_andTheSdkDecodesThem() {
    List<String> expected = new ArrayList<>(ENC_KEYS);
    expected.sort(UTF8);
    List<String> v2 = new ArrayList<>();
    s3.listObjectsV2Paginator(b -> b.bucket(ENC_BUCKET).encodingType(EncodingType.URL).maxKeys(2)).contents()
        .forEach(o -> v2.add(o.key()));
    assertThat(v2).isEqualTo(expected);

    ListObjectsResponse v1 = s3.listObjects(b -> b.bucket(ENC_BUCKET).encodingType(EncodingType.URL));
    assertThat(keys(v1.contents())).isEqualTo(expected);
    // V1 pages: the marker (the last key, decoded by the SDK) leads on.
    List<String> paged = new ArrayList<>();
    String marker = null;
    do {
      String m = marker;
      ListObjectsResponse page = s3.listObjects(b -> b.bucket(ENC_BUCKET).encodingType(EncodingType.URL).maxKeys(2)
          .marker(m));
      paged.addAll(keys(page.contents()));
      marker = page.isTruncated() ? page.contents().get(page.contents().size() - 1).key() : null;
    } while (marker != null && paged.size() < 100);
    assertThat(paged).isEqualTo(expected);

    ListObjectsV2Response withPrefix = s3.listObjectsV2(b -> b.bucket(ENC_BUCKET).encodingType(EncodingType.URL)
        .prefix("enc/with ").delimiter(" "));
    assertThat(withPrefix.prefix()).isEqualTo("enc/with ");
    assertThat(withPrefix.delimiter()).isEqualTo(" ");
    assertThat(keys(withPrefix.contents())).containsExactly("enc/with space");

    // Every listed key names its object.
    for (String k : expected) {
      assertThat(s3.getObjectAsBytes(b -> b.bucket(ENC_BUCKET).key(k)).asUtf8String()).isEqualTo(k);
    }
  }

  @Test
  void encodingTypeUrl_rawAnswer_percentEncodesKeys_andCarriesNoControlCharacters() throws Exception {
    Http.Reply r = S3Support.sendSigned(cluster, "GET", "/" + ENC_BUCKET + "?encoding-type=url&list-type=2&prefix="
        + URLEncoder.encode("enc/", StandardCharsets.UTF_8), Map.of(), new byte[0], null);
    assertThat(r.status()).as(S3Support.brief(r)).isEqualTo(200);
    assertThat(r.bodyText()).contains("<EncodingType>url</EncodingType>")
        .contains("<Key>enc/%01bell</Key>").contains("<Key>enc/with%20space</Key>")
        .contains("<Key>enc/plus%2Bsign</Key>").contains("<Key>enc/new%0Aline</Key>")
        .doesNotContain("\u0001");
    assertS3Error(() -> s3.listObjectsV2(b -> b.bucket(ENC_BUCKET).encodingType("base64")), 400, "InvalidArgument");
  }

  @Test
  void listBuckets_showsCreatedBuckets() {
    s3.createBucket(b -> b.bucket("s3listing-extra"));
    List<String> names = s3.listBuckets().buckets().stream().map(Bucket::name).toList();
    assertThat(names).contains(BUCKET, ENC_BUCKET, "s3listing-extra");
    assertThat(s3.listBuckets().buckets()).allSatisfy(b -> assertThat(b.creationDate()).isNotNull());
    assertThat(async.listBuckets().join().buckets().stream().map(Bucket::name).toList()).contains("s3listing-extra");
  }

  @Test
  void listBuckets_pagedByMaxBuckets_withPrefix_returnsEachMatchingBucketOnce_byName() {
    List<String> made = List.of("s3lpage-c", "s3lpage-a", "s3lpage-e", "s3lpage-b", "s3lpage-d");
    made.forEach(n -> s3.createBucket(b -> b.bucket(n)));
    List<String> listed = new ArrayList<>();
    String token = null;
    int pages = 0;
    do {
      String t = token;
      ListBucketsResponse page = s3.listBuckets(b -> b.prefix("s3lpage-").maxBuckets(2).continuationToken(t));
      assertThat(page.buckets()).hasSizeLessThanOrEqualTo(2);
      assertThat(page.prefix()).isEqualTo("s3lpage-");
      page.buckets().forEach(bk -> listed.add(bk.name()));
      token = page.continuationToken();
      pages++;
    } while (token != null && pages < 10);
    assertThat(listed).containsExactly("s3lpage-a", "s3lpage-b", "s3lpage-c", "s3lpage-d", "s3lpage-e");
    assertThat(pages).isEqualTo(3);
    assertThat(s3.listBuckets(b -> b.prefix("s3lpage-z")).buckets()).isEmpty();
    assertS3Error(() -> s3.listBuckets(b -> b.maxBuckets(0)), 400, "InvalidArgument");
    assertS3Error(() -> s3.listBuckets(b -> b.continuationToken("not a token!")), 400, "InvalidArgument");
  }

  @Test
  void listV2_listsOwnersOnlyWithFetchOwner_andEchoesAnEmptyContinuationToken() throws Exception {
    assertThat(s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("docs/")).contents())
        .isNotEmpty().allSatisfy(o -> assertThat(o.owner()).isNull());
    assertThat(s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("docs/").fetchOwner(true)).contents())
        .isNotEmpty().allSatisfy(o -> assertThat(o.owner()).isNotNull());
    assertThat(s3.listObjects(b -> b.bucket(BUCKET).prefix("docs/")).contents())
        .as("V1 always lists owners, as S3 does").isNotEmpty().allSatisfy(o -> assertThat(o.owner()).isNotNull());
    Http.Reply r = S3Support.sendSigned(cluster, "GET", "/" + BUCKET + "?list-type=2&prefix=docs%2F&continuation-token=",
        Map.of(), new byte[0], null);
    assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
    assertThat(r.bodyText()).contains("<ContinuationToken></ContinuationToken>").contains("<Key>docs/readme.md</Key>");
  }

  @Test
  void headBucket_existingIs200_missingIs404() {
    assertThat(s3.headBucket(b -> b.bucket(BUCKET)).sdkHttpResponse().statusCode()).isEqualTo(200);
    Throwable missing = catchThrowable(() -> s3.headBucket(b -> b.bucket("s3listing-missing")));
    assertThat(missing).isInstanceOf(S3Exception.class);
    assertThat(((S3Exception) missing).statusCode()).isEqualTo(404);
    assertThat(missing).isInstanceOf(NoSuchBucketException.class);
    assertS3Error(() -> s3.listObjectsV2(b -> b.bucket("s3listing-missing")), 404, "NoSuchBucket");
  }

  @Test
  void getBucketLocation_andVersioning_answer() {
    String location = s3.getBucketLocation(b -> b.bucket(BUCKET)).locationConstraintAsString();
    // us-east-1 is reported as "us-east-1" or, as AWS does, as an empty constraint; SDKs read both as us-east-1.
    assertThat(location == null || location.isEmpty() || location.equals("us-east-1")).as(location).isTrue();
    assertS3Error(() -> s3.getBucketLocation(b -> b.bucket("s3listing-missing")), 404, "NoSuchBucket");
    // Versioning was never enabled: no status.
    assertThat(s3.getBucketVersioning(b -> b.bucket(BUCKET)).status()).isNull();
  }

  @Test
  void deleteBucket_nonEmptyIs409BucketNotEmpty_emptyIs204_thenItIsGone() {
    String bucket = "s3listing-doomed";
    s3.createBucket(b -> b.bucket(bucket));
    s3.putObject(b -> b.bucket(bucket).key("a/one"), RequestBody.fromString("1"));
    s3.putObject(b -> b.bucket(bucket).key("two"), RequestBody.fromString("2"));

    assertS3Error(() -> s3.deleteBucket(b -> b.bucket(bucket)), 409, "BucketNotEmpty");
    // Refused: bucket and objects are intact.
    assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("a/one")).asUtf8String()).isEqualTo("1");

    s3.deleteObject(b -> b.bucket(bucket).key("a/one"));
    assertS3Error(() -> s3.deleteBucket(b -> b.bucket(bucket)), 409, "BucketNotEmpty");
    s3.deleteObject(b -> b.bucket(bucket).key("two"));
    assertThat(s3.deleteBucket(b -> b.bucket(bucket)).sdkHttpResponse().statusCode()).isEqualTo(204);

    assertThat(catchThrowable(() -> s3.headBucket(b -> b.bucket(bucket)))).isInstanceOf(NoSuchBucketException.class);
    assertThat(s3.listBuckets().buckets().stream().map(Bucket::name).toList()).doesNotContain(bucket);
    assertS3Error(() -> s3.deleteBucket(b -> b.bucket(bucket)), 404, "NoSuchBucket");
    assertS3Error(() -> s3.putObject(b -> b.bucket(bucket).key("x"), RequestBody.fromString("x")), 404, "NoSuchBucket");

    // The name can be used again, and the new bucket starts empty.
    s3.createBucket(b -> b.bucket(bucket));
    assertThat(s3.listObjectsV2(b -> b.bucket(bucket)).contents()).isEmpty();
    s3.deleteBucket(b -> b.bucket(bucket));
  }

  @Test
  void createBucket_existingIs409_invalidNamesAre400InvalidBucketName() throws Exception {
    assertS3Error(() -> s3.createBucket(b -> b.bucket(BUCKET)), 409, "BucketAlreadyOwnedByYou");
    List<String> before = s3.listBuckets().buckets().stream().map(Bucket::name).toList();
    // Through the SDK, which refuses some names itself ("ab", "UPPER") and sends the others.
    int sent = 0;
    for (String name : List.of("UPPER", "a..b", "-leading", "trailing-", "192.168.1.1", "under_score",
        "xn--punycode", "name-s3alias")) {
      Throwable t = catchThrowable(() -> s3.createBucket(b -> b.bucket(name)));
      if (t instanceof IllegalArgumentException) {
        continue; // refused client-side
      }
      sent++;
      assertThat(t).as(name).isInstanceOf(S3Exception.class);
      assertThat(((S3Exception) t).statusCode()).as(name).isEqualTo(400);
      assertThat(((S3Exception) t).awsErrorDetails().errorCode()).as(name).isEqualTo("InvalidBucketName");
    }
    assertThat(sent).as("names the SDK sent to the cluster").isPositive();
    // Every invalid name, signed and sent as is.
    for (String name : List.of("ab", "UPPER", "a..b", "Mixed.Case", "a".repeat(64), "bad!char", "end.", "-leading",
        "192.168.1.1", "xn--punycode")) {
      Http.Reply r = S3Support.sendSigned(cluster, "PUT", "/" + URLEncoder.encode(name, StandardCharsets.UTF_8),
          Map.of(), new byte[0], null);
      assertThat(r.status()).as(name + ": " + S3Support.brief(r)).isEqualTo(400);
      assertThat(r.bodyText()).as(name).contains("<Code>InvalidBucketName</Code>");
    }
    assertThat(s3.listBuckets().buckets().stream().map(Bucket::name).toList()).isEqualTo(before);
  }

  @Test
  void maxKeys_zeroAnswersAnEmptyPage_negativeIs400() {
    ListObjectsV2Response zero = s3.listObjectsV2(b -> b.bucket(BUCKET).maxKeys(0));
    assertThat(zero.contents()).isEmpty();
    assertThat(zero.maxKeys()).isZero();
    assertS3Error(() -> s3.listObjectsV2(b -> b.bucket(BUCKET).maxKeys(-1)), 400, "InvalidArgument");
  }
}
