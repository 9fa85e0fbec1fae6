package io.granary.common.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** ListObjects V2 and V1 answers. */
class ListBucketResultTest {
  private static final Instant T = Instant.parse("2026-11-21T14:00:00Z");
  private static final String HOSTILE = "dir/a&b<c>\"d'e \u00e9\u65e5\ud83d\ude00+%.txt";

  private static ObjectListing page(boolean truncated, String next) {
    return new ObjectListing(List.of(
        new ListedObject("dir/a.txt", T, "9b2cf535f27731c974343645a3985328", 434234),
        new ListedObject(HOSTILE, T, "\"0123456789abcdef0123456789abcdef-3\"", 0)),
        List.of("dir/sub/", "dir/x y/"), truncated, next);
  }

  @Test
  void v2_minimal_elementsInS3Order() {
    ListBucketResultV2 r = new ListBucketResultV2("bucket", null, null, 1000, null, null, false, null,
        new ObjectListing(List.of(new ListedObject("a", T, "e", 1)), List.of(), false, null));

    ParsedXml x = ParsedXml.parse(r.toXml());

    assertThat(x.name()).isEqualTo("ListBucketResult");
    assertThat(x.namespace()).isEqualTo(S3XmlWriter.NAMESPACE);
    assertThat(x.childNames()).containsExactly("Name", "Prefix", "KeyCount", "MaxKeys", "IsTruncated", "Contents");
    assertThat(x.text("Prefix")).isEmpty();
    assertThat(x.text("KeyCount")).isEqualTo("1");
    assertThat(x.text("IsTruncated")).isEqualTo("false");
    ParsedXml c = x.child("Contents");
    assertThat(c.childNames()).containsExactly("Key", "LastModified", "ETag", "Size", "StorageClass");
    assertThat(c.text("Key")).isEqualTo("a");
    assertThat(c.text("LastModified")).isEqualTo("2026-11-21T14:00:00.000Z");
    assertThat(c.text("ETag")).isEqualTo("\"e\"");
    assertThat(c.text("Size")).isEqualTo("1");
    assertThat(c.text("StorageClass")).isEqualTo("STANDARD");
  }

  @Test
  void v2_everything_elementsInS3Order() {
    ListBucketResultV2 r = new ListBucketResultV2("bucket", "dir/", "/", 3, "tok-in", "dir/0", false,
        new Owner("owner-id", "owner"), page(true, "tok-out"));

    ParsedXml x = ParsedXml.parse(r.toXml());

    assertThat(x.childNames()).containsExactly("Name", "Prefix", "StartAfter", "ContinuationToken",
        "NextContinuationToken", "KeyCount", "MaxKeys", "Delimiter", "IsTruncated", "Contents", "Contents",
        "CommonPrefixes", "CommonPrefixes");
    assertThat(x.text("Name")).isEqualTo("bucket");
    assertThat(x.text("Prefix")).isEqualTo("dir/");
    assertThat(x.text("StartAfter")).isEqualTo("dir/0");
    assertThat(x.text("ContinuationToken")).isEqualTo("tok-in");
    assertThat(x.text("NextContinuationToken")).isEqualTo("tok-out");
    assertThat(x.text("KeyCount")).isEqualTo("4");
    assertThat(x.text("MaxKeys")).isEqualTo("3");
    assertThat(x.text("Delimiter")).isEqualTo("/");
    assertThat(x.text("IsTruncated")).isEqualTo("true");
    ParsedXml second = x.all("Contents").get(1);
    assertThat(second.childNames()).containsExactly("Key", "LastModified", "ETag", "Size", "Owner", "StorageClass");
    assertThat(second.text("Key")).isEqualTo(HOSTILE);
    assertThat(second.text("ETag")).isEqualTo("\"0123456789abcdef0123456789abcdef-3\"");
    assertThat(second.child("Owner").text("ID")).isEqualTo("owner-id");
    assertThat(x.all("CommonPrefixes")).extracting(p -> p.text("Prefix")).containsExactly("dir/sub/", "dir/x y/");
  }

  @Test
  void v2_notTruncated_hasNoNextToken() {
    ListBucketResultV2 r = new ListBucketResultV2("b", "", null, 10, "tok", null, false, null, page(false, "ignored"));

    assertThat(ParsedXml.parse(r.toXml()).childNames()).doesNotContain("NextContinuationToken").contains("ContinuationToken");
  }

  @Test
  void v2_anEmptyContinuationToken_isEchoed_andNoneIsNotWritten() {
    ParsedXml empty = ParsedXml.parse(new ListBucketResultV2("b", "", null, 10, "", null, false, null,
        page(false, null)).toXml());
    ParsedXml none = ParsedXml.parse(new ListBucketResultV2("b", "", null, 10, null, null, false, null,
        page(false, null)).toXml());

    assertThat(empty.childNames()).contains("ContinuationToken");
    assertThat(empty.text("ContinuationToken")).isEmpty();
    assertThat(none.childNames()).doesNotContain("ContinuationToken");
  }

  @Test
  void v2_urlEncoded_encodesKeysPrefixesDelimiterStartAfter_notTokens() {
    String prefix = "dir/ &";
    ListBucketResultV2 r = new ListBucketResultV2("b", prefix, "\u0001", 5, "a+b", "dir/\u0002", true, null,
        new ObjectListing(List.of(new ListedObject("dir/ &\u0003\r.txt", T, "e", 1)), List.of("dir/ &\u0001"), true,
            "n+x"));

    byte[] xml = r.toXml();
    ParsedXml x = ParsedXml.parse(xml); // control characters no longer reach the XML: strict parsers read it

    assertThat(x.childNames()).containsExactly("Name", "Prefix", "StartAfter", "ContinuationToken",
        "NextContinuationToken", "KeyCount", "MaxKeys", "Delimiter", "EncodingType", "IsTruncated", "Contents",
        "CommonPrefixes");
    assertThat(x.text("EncodingType")).isEqualTo("url");
    assertThat(x.text("Prefix")).isEqualTo("dir/%20%26");
    assertThat(x.text("Delimiter")).isEqualTo("%01");
    assertThat(x.text("StartAfter")).isEqualTo("dir/%02");
    assertThat(x.text("ContinuationToken")).isEqualTo("a+b");
    assertThat(x.text("NextContinuationToken")).isEqualTo("n+x");
    assertThat(x.child("Contents").text("Key")).isEqualTo("dir/%20%26%03%0D.txt");
    assertThat(decode(x.child("Contents").text("Key"))).isEqualTo("dir/ &\u0003\r.txt");
    assertThat(decode(x.child("CommonPrefixes").text("Prefix"))).isEqualTo("dir/ &\u0001");
    assertThat(decode(x.text("Prefix"))).isEqualTo(prefix);
  }

  @Test
  void v2_hostileKeys_roundTripWithoutEncoding() {
    ListBucketResultV2 r = new ListBucketResultV2("b", "a&<", null, 1000, null, null, false, null, page(false, null));

    ParsedXml x = ParsedXml.parse(r.toXml());

    assertThat(x.text("Prefix")).isEqualTo("a&<");
    assertThat(x.all("Contents").get(1).text("Key")).isEqualTo(HOSTILE);
  }

  @Test
  void v2_empty() {
    ListBucketResultV2 r = new ListBucketResultV2("b", "none/", "/", 1000, null, null, false, null,
        new ObjectListing(List.of(), List.of(), false, null));

    ParsedXml x = ParsedXml.parse(r.toXml());

    assertThat(x.childNames()).containsExactly("Name", "Prefix", "KeyCount", "MaxKeys", "Delimiter", "IsTruncated");
    assertThat(x.text("KeyCount")).isEqualTo("0");
  }

  @Test
  void v1_minimal_prefixAndMarkerAlwaysPresent() {
    ListBucketResultV1 r = new ListBucketResultV1("bucket", null, null, null, 1000, false, null,
        new ObjectListing(List.of(new ListedObject("a", T, "e", 1)), List.of(), true, "a"));

    ParsedXml x = ParsedXml.parse(r.toXml());

    // Truncated without a delimiter: no NextMarker, clients continue from the last Key.
    assertThat(x.childNames()).containsExactly("Name", "Prefix", "Marker", "MaxKeys", "IsTruncated", "Contents");
    assertThat(x.text("Prefix")).isEmpty();
    assertThat(x.text("Marker")).isEmpty();
    assertThat(x.text("IsTruncated")).isEqualTo("true");
  }

  @Test
  void v1_withDelimiterAndTruncated_hasNextMarker() {
    ListBucketResultV1 r = new ListBucketResultV1("bucket", "dir/", "dir/0", "/", 4, false,
        new Owner("id", "name"), page(true, "dir/x y/"));

    ParsedXml x = ParsedXml.parse(r.toXml());

    assertThat(x.childNames()).containsExactly("Name", "Prefix", "Marker", "NextMarker", "MaxKeys", "Delimiter",
        "IsTruncated", "Contents", "Contents", "CommonPrefixes", "CommonPrefixes");
    assertThat(x.text("Marker")).isEqualTo("dir/0");
    assertThat(x.text("NextMarker")).isEqualTo("dir/x y/");
    assertThat(x.all("Contents").get(0).childNames())
        .containsExactly("Key", "LastModified", "ETag", "Size", "Owner", "StorageClass");
    assertThat(x.all("Contents").get(1).text("Key")).isEqualTo(HOSTILE);
  }

  @Test
  void v1_notTruncated_hasNoNextMarker() {
    ListBucketResultV1 r = new ListBucketResultV1("b", null, null, "/", 4, false, null, page(false, "x"));

    assertThat(ParsedXml.parse(r.toXml()).childNames()).doesNotContain("NextMarker");
  }

  @Test
  void v1_urlEncoded_encodesMarkersToo() {
    ListBucketResultV1 r = new ListBucketResultV1("b", "p q", "m\u0001", "/", 4, true, null, page(true, "dir/x y/"));

    ParsedXml x = ParsedXml.parse(r.toXml());

    assertThat(x.childNames()).containsSubsequence("Delimiter", "EncodingType", "IsTruncated");
    assertThat(x.text("Prefix")).isEqualTo("p%20q");
    assertThat(x.text("Marker")).isEqualTo("m%01");
    assertThat(x.text("NextMarker")).isEqualTo("dir/x%20y/");
    assertThat(decode(x.all("Contents").get(1).text("Key"))).isEqualTo(HOSTILE);
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }
}
