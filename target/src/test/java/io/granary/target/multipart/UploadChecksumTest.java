package io.granary.target.multipart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.clustermap.acl.CannedAcl;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.clustermap.ClusterJson;
import io.granary.target.meta.FlexibleChecksum;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;

class UploadChecksumTest {

  @Test
  void composite_isTheCrcOfThePartCrcsOneAfterAnother() {
    List<Part> parts = List.of(new Part(1, 5, "aa", 0, "1.a", "0badf00d"), new Part(2, 3, "bb", 0, "2.b", "deadbeef"));
    CRC32 expected = new CRC32();
    expected.update(HexFormat.of().parseHex("0badf00ddeadbeef"));
    FlexibleChecksum c = UploadAssembler.composite(
        new UploadChecksum(ChecksumType.CRC32, FlexibleChecksum.Kind.COMPOSITE), parts);
    assertThat(c.kind()).isEqualTo(FlexibleChecksum.Kind.COMPOSITE);
    assertThat(c.hex()).isEqualTo(HexFormat.of().formatHex(ByteBuffer.allocate(4)
        .putInt((int) expected.getValue()).array()));
    assertThat(c.wireValue(parts.size())).endsWith("-2");
  }

  @Test
  void composite_isNone_whenAPartHasNoChecksum_orTheUploadIsFullObject() {
    List<Part> parts = List.of(new Part(1, 5, "aa", 0, "1.a", "0badf00d"), new Part(2, 3, "bb", 0, "2.b"));
    assertThat(UploadAssembler.composite(new UploadChecksum(ChecksumType.CRC32, FlexibleChecksum.Kind.COMPOSITE),
        parts)).isNull();
    assertThat(UploadAssembler.composite(new UploadChecksum(ChecksumType.CRC32, FlexibleChecksum.Kind.FULL_OBJECT),
        parts.subList(0, 1))).isNull();
    assertThat(UploadAssembler.composite(null, parts.subList(0, 1))).isNull();
  }

  @Test
  void fullObject_isForCrcsOnly_andCrc64NvmeDefaultsToIt() {
    assertThatThrownBy(() -> new UploadChecksum(ChecksumType.SHA256, FlexibleChecksum.Kind.FULL_OBJECT))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(UploadChecksum.defaultKind(ChecksumType.CRC64NVME)).isEqualTo(FlexibleChecksum.Kind.FULL_OBJECT);
    assertThat(UploadChecksum.defaultKind(ChecksumType.SHA1)).isEqualTo(FlexibleChecksum.Kind.COMPOSITE);
  }

  @Test
  void records_keepTheirChecksumsInJson_andOlderRecordsReadWithNone() throws Exception {
    var json = ClusterJson.mapper();
    Upload u = new Upload("id", "k", 1, null, Map.of(), Map.of(), CannedAcl.PRIVATE,
        new UploadChecksum(ChecksumType.CRC64NVME, FlexibleChecksum.Kind.FULL_OBJECT));
    assertThat(json.readValue(json.writeValueAsBytes(u), Upload.class)).isEqualTo(u);
    Part p = new Part(1, 5, "aa", 2, "1.a", "0badf00d");
    assertThat(json.readValue(json.writeValueAsBytes(p), Part.class)).isEqualTo(p);
    CompletedUpload c = new CompletedUpload("id", "k", "e-2", 5, 6, 7, "h",
        new FlexibleChecksum(ChecksumType.SHA256, "00".repeat(32), FlexibleChecksum.Kind.COMPOSITE), 2);
    assertThat(json.readValue(json.writeValueAsBytes(c), CompletedUpload.class)).isEqualTo(c);

    assertThat(json.readValue("{\"uploadId\":\"id\",\"name\":\"k\",\"initiated\":1}", Upload.class).checksum())
        .isNull();
    assertThat(json.readValue("{\"number\":1,\"size\":5,\"md5\":\"aa\",\"mtime\":2,\"file\":\"1.a\"}",
        Part.class).checksum()).isNull();
  }
}
