package io.granary.common.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class GetObjectAttributesResponseTest {

  @Test
  void everyAttribute_inS3Order_withAnUnquotedEtag() {
    ObjectPartsPage parts = new ObjectPartsPage(3, 1, 1, true,
        List.of(new ObjectPartsPage.Part(2, 5L << 20, new ObjectChecksum("crc32", "AAAAAA==", null))));
    ParsedXml x = ParsedXml.parse(new GetObjectAttributesResponse("\"abc-3\"",
        new ObjectChecksum("crc64nvme", "AAAAAAAAAAA=", "FULL_OBJECT"), parts, "STANDARD", 42L).toXml());

    assertThat(x.name()).isEqualTo("GetObjectAttributesResponse");
    assertThat(x.namespace()).isEqualTo(S3XmlWriter.NAMESPACE);
    assertThat(x.childNames()).containsExactly("ETag", "Checksum", "ObjectParts", "StorageClass", "ObjectSize");
    assertThat(x.text("ETag")).isEqualTo("abc-3");
    assertThat(x.child("Checksum").childNames()).containsExactly("ChecksumCRC64NVME", "ChecksumType");
    assertThat(x.child("Checksum").text("ChecksumCRC64NVME")).isEqualTo("AAAAAAAAAAA=");
    assertThat(x.child("Checksum").text("ChecksumType")).isEqualTo("FULL_OBJECT");
    ParsedXml p = x.child("ObjectParts");
    assertThat(p.childNames()).containsExactly("PartsCount", "PartNumberMarker", "NextPartNumberMarker", "MaxParts",
        "IsTruncated", "Part");
    assertThat(p.text("PartsCount")).isEqualTo("3");
    assertThat(p.text("NextPartNumberMarker")).isEqualTo("2");
    assertThat(p.text("IsTruncated")).isEqualTo("true");
    ParsedXml part = p.child("Part");
    assertThat(part.childNames()).containsExactly("ChecksumCRC32", "PartNumber", "Size");
    assertThat(part.text("Size")).isEqualTo(String.valueOf(5L << 20));
    assertThat(x.text("ObjectSize")).isEqualTo("42");
  }

  @Test
  void onlyWhatWasAskedFor() {
    ParsedXml x = ParsedXml.parse(new GetObjectAttributesResponse(null, null, null, null, 7L).toXml());
    assertThat(x.childNames()).containsExactly("ObjectSize");
  }
}
