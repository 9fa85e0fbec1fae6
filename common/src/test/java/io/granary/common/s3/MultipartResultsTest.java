package io.granary.common.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** InitiateMultipartUploadResult, CompleteMultipartUploadResult, ListPartsResult, ListMultipartUploadsResult. */
class MultipartResultsTest {
  private static final Instant T = Instant.parse("2026-11-21T14:00:00Z");
  private static final String KEY = "a&b<c>\"d'e/\u00e9\u65e5\ud83d\ude00";

  @Test
  void initiate() {
    ParsedXml x = ParsedXml.parse(new InitiateMultipartUploadResult("bucket", KEY, "upload-1").toXml());

    assertThat(x.name()).isEqualTo("InitiateMultipartUploadResult");
    assertThat(x.namespace()).isEqualTo(S3XmlWriter.NAMESPACE);
    assertThat(x.childNames()).containsExactly("Bucket", "Key", "UploadId");
    assertThat(x.text("Bucket")).isEqualTo("bucket");
    assertThat(x.text("Key")).isEqualTo(KEY);
    assertThat(x.text("UploadId")).isEqualTo("upload-1");
  }

  @Test
  void complete_quotesTheEtag() {
    ParsedXml x = ParsedXml.parse(
        new CompleteMultipartUploadResult("http://h/bucket/k", "bucket", KEY, "abc-2").toXml());

    assertThat(x.name()).isEqualTo("CompleteMultipartUploadResult");
    assertThat(x.childNames()).containsExactly("Location", "Bucket", "Key", "ETag");
    assertThat(x.text("Location")).isEqualTo("http://h/bucket/k");
    assertThat(x.text("Key")).isEqualTo(KEY);
    assertThat(x.text("ETag")).isEqualTo("\"abc-2\"");
  }

  @Test
  void listParts_truncated() {
    ListPartsResult r = new ListPartsResult("bucket", KEY, "up", 1, 2, true, List.of(
        new ListedPart(2, T, "e2", 5 << 20), new ListedPart(3, T, "\"e3\"", 7)), new Owner("id", "name"));

    ParsedXml x = ParsedXml.parse(r.toXml());

    assertThat(x.name()).isEqualTo("ListPartsResult");
    assertThat(x.childNames()).containsExactly("Bucket", "Key", "UploadId", "Initiator", "Owner", "StorageClass",
        "PartNumberMarker", "NextPartNumberMarker", "MaxParts", "IsTruncated", "Part", "Part");
    assertThat(x.text("Key")).isEqualTo(KEY);
    assertThat(x.text("PartNumberMarker")).isEqualTo("1");
    assertThat(x.text("NextPartNumberMarker")).isEqualTo("3");
    assertThat(x.text("MaxParts")).isEqualTo("2");
    assertThat(x.text("IsTruncated")).isEqualTo("true");
    assertThat(x.child("Initiator").text("ID")).isEqualTo("id");
    ParsedXml p = x.all("Part").get(0);
    assertThat(p.childNames()).containsExactly("PartNumber", "LastModified", "ETag", "Size");
    assertThat(p.text("PartNumber")).isEqualTo("2");
    assertThat(p.text("LastModified")).isEqualTo("2026-11-21T14:00:00.000Z");
    assertThat(p.text("ETag")).isEqualTo("\"e2\"");
    assertThat(p.text("Size")).isEqualTo(String.valueOf(5 << 20));
    assertThat(x.all("Part").get(1).text("ETag")).isEqualTo("\"e3\"");
  }

  @Test
  void listParts_lastPage_withoutOwner() {
    ListPartsResult r = new ListPartsResult("bucket", "k", "up", 0, 1000, false, List.of(), null);

    ParsedXml x = ParsedXml.parse(r.toXml());

    assertThat(x.childNames()).containsExactly("Bucket", "Key", "UploadId", "StorageClass", "PartNumberMarker",
        "MaxParts", "IsTruncated");
    assertThat(x.text("PartNumberMarker")).isEqualTo("0");
  }

  @Test
  void listUploads_truncated_withPrefixes() {
    ListMultipartUploadsResult r = new ListMultipartUploadsResult("bucket", "photos/", "/", null, null, 2, false,
        new Owner("id", "name"), new MultipartUploadListing(
            List.of(new ListedUpload(KEY, "u1", T)), List.of("photos/2006/"), true, KEY, "u1"));

    ParsedXml x = ParsedXml.parse(r.toXml());

    assertThat(x.name()).isEqualTo("ListMultipartUploadsResult");
    assertThat(x.childNames()).containsExactly("Bucket", "KeyMarker", "UploadIdMarker", "NextKeyMarker",
        "NextUploadIdMarker", "Delimiter", "Prefix", "MaxUploads", "IsTruncated", "Upload", "CommonPrefixes");
    assertThat(x.text("KeyMarker")).isEmpty();
    assertThat(x.text("UploadIdMarker")).isEmpty();
    assertThat(x.text("NextKeyMarker")).isEqualTo(KEY);
    assertThat(x.text("NextUploadIdMarker")).isEqualTo("u1");
    assertThat(x.text("Prefix")).isEqualTo("photos/");
    assertThat(x.text("MaxUploads")).isEqualTo("2");
    assertThat(x.text("IsTruncated")).isEqualTo("true");
    ParsedXml u = x.child("Upload");
    assertThat(u.childNames()).containsExactly("Key", "UploadId", "Initiator", "Owner", "StorageClass", "Initiated");
    assertThat(u.text("Key")).isEqualTo(KEY);
    assertThat(u.text("Initiated")).isEqualTo("2026-11-21T14:00:00.000Z");
    assertThat(x.child("CommonPrefixes").text("Prefix")).isEqualTo("photos/2006/");
  }

  @Test
  void listUploads_empty_markersPresentButEmpty() {
    ListMultipartUploadsResult r = new ListMultipartUploadsResult("bucket", null, null, "k", "u", 1000, false, null,
        new MultipartUploadListing(List.of(), List.of(), false, "ignored", "ignored"));

    ParsedXml x = ParsedXml.parse(r.toXml());

    assertThat(x.childNames()).containsExactly("Bucket", "KeyMarker", "UploadIdMarker", "NextKeyMarker",
        "NextUploadIdMarker", "Prefix", "MaxUploads", "IsTruncated");
    assertThat(x.text("KeyMarker")).isEqualTo("k");
    assertThat(x.text("NextKeyMarker")).isEmpty();
  }

  @Test
  void listUploads_urlEncoded_encodesKeysAndMarkers_notUploadIds() {
    String key = "a b\u0001";
    ListMultipartUploadsResult r = new ListMultipartUploadsResult("bucket", "a ", " ", "a\u0002", "u+1", 1, true,
        null, new MultipartUploadListing(List.of(new ListedUpload(key, "u+2", T)), List.of("a b "), true, key, "u+2"));

    ParsedXml x = ParsedXml.parse(r.toXml());

    assertThat(x.childNames()).containsSubsequence("Prefix", "EncodingType", "MaxUploads");
    assertThat(x.text("EncodingType")).isEqualTo("url");
    assertThat(x.text("KeyMarker")).isEqualTo("a%02");
    assertThat(x.text("UploadIdMarker")).isEqualTo("u+1");
    assertThat(x.text("NextKeyMarker")).isEqualTo("a%20b%01");
    assertThat(x.text("NextUploadIdMarker")).isEqualTo("u+2");
    assertThat(x.text("Delimiter")).isEqualTo("%20");
    assertThat(x.text("Prefix")).isEqualTo("a%20");
    assertThat(URLDecoder.decode(x.child("Upload").text("Key"), StandardCharsets.UTF_8)).isEqualTo(key);
    assertThat(x.child("Upload").text("UploadId")).isEqualTo("u+2");
    assertThat(x.child("CommonPrefixes").text("Prefix")).isEqualTo("a%20b%20");
  }
}
