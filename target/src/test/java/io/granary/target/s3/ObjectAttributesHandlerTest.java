package io.granary.target.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.clustermap.bucket.ChecksumType;
import io.granary.common.error.BadRequestException;
import io.granary.common.s3.GetObjectAttributesResponse;
import io.granary.common.s3.ObjectPartsPage;
import io.granary.target.meta.FlexibleChecksum;
import io.granary.target.meta.ObjectMeta;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ObjectAttributesHandlerTest {
  private static final ObjectMeta MULTIPART = new ObjectMeta(12, ChecksumType.XXHASH64, "00", 1, "e-3", null,
      Map.of(), Map.of(), List.of(5L, 5L, 2L));

  @Test
  void parse_namesCaseInsensitively_overSeveralLines_withDefaults() {
    HttpHeaders h = new DefaultHttpHeaders().add(AttributesRequest.ATTRIBUTES_HEADER, "etag, ObjectSize")
        .add(AttributesRequest.ATTRIBUTES_HEADER, "Checksum");
    AttributesRequest r = AttributesRequest.parse(h);
    assertThat(r.attributes()).containsExactlyInAnyOrder(AttributesRequest.Attribute.ETAG,
        AttributesRequest.Attribute.OBJECT_SIZE, AttributesRequest.Attribute.CHECKSUM);
    assertThat(r.maxParts()).isEqualTo(1000);
    assertThat(r.partNumberMarker()).isZero();
  }

  @Test
  void parse_unknownOrMissingNamesOrBadNumbers_isInvalidArgument() {
    for (HttpHeaders h : List.of(new DefaultHttpHeaders(),
        new DefaultHttpHeaders().add(AttributesRequest.ATTRIBUTES_HEADER, "ETag,Colour"),
        new DefaultHttpHeaders().add(AttributesRequest.ATTRIBUTES_HEADER, "ETag")
            .add(AttributesRequest.MAX_PARTS_HEADER, "-1"),
        new DefaultHttpHeaders().add(AttributesRequest.ATTRIBUTES_HEADER, "ETag")
            .add(AttributesRequest.MARKER_HEADER, "x"))) {
      assertThatThrownBy(() -> AttributesRequest.parse(h)).isInstanceOf(BadRequestException.class)
          .hasFieldOrPropertyWithValue("code", "InvalidArgument");
    }
  }

  @Test
  void parts_pagesByMarkerAndMaxParts() {
    ObjectPartsPage first = ObjectAttributesHandler.parts(new AttributesRequest(
        java.util.Set.of(AttributesRequest.Attribute.OBJECT_PARTS), 2, 0), MULTIPART);
    assertThat(first.parts()).extracting(ObjectPartsPage.Part::number).containsExactly(1, 2);
    assertThat(first.truncated()).isTrue();
    assertThat(first.nextPartNumberMarker()).isEqualTo(2);
    ObjectPartsPage rest = ObjectAttributesHandler.parts(new AttributesRequest(
        java.util.Set.of(AttributesRequest.Attribute.OBJECT_PARTS), 2, 2), MULTIPART);
    assertThat(rest.parts()).extracting(ObjectPartsPage.Part::size).containsExactly(2L);
    assertThat(rest.truncated()).isFalse();
    assertThat(rest.partsCount()).isEqualTo(3);
    assertThat(first.parts()).extracting(ObjectPartsPage.Part::checksum).containsOnlyNulls();
  }

  @Test
  void parts_listEachPartsChecksum_whenTheObjectKeepsThem() {
    ObjectMeta kept = MULTIPART.withFlexible(new FlexibleChecksum(ChecksumType.CRC32C, "0badf00d",
        FlexibleChecksum.Kind.COMPOSITE, List.of("00000001", "00000002", "0badf00d")));
    ObjectPartsPage page = ObjectAttributesHandler.parts(new AttributesRequest(
        java.util.Set.of(AttributesRequest.Attribute.OBJECT_PARTS), 2, 1), kept);
    assertThat(page.parts()).extracting(p -> p.number() + " " + p.checksum().element() + " " + p.checksum().value()
        + " " + p.checksum().type()).containsExactly("2 ChecksumCRC32C AAAAAg== null", "3 ChecksumCRC32C C63wDQ== null");
  }

  @Test
  void answer_leavesOutWhatTheObjectHasNot() {
    AttributesRequest all = new AttributesRequest(java.util.Set.of(AttributesRequest.Attribute.values()), 1000, 0);
    ObjectMeta single = new ObjectMeta(3, ChecksumType.XXHASH64, "00", 1, "md5", null, Map.of());
    GetObjectAttributesResponse r = ObjectAttributesHandler.answer(all, single);
    assertThat(r.parts()).isNull();
    assertThat(r.checksum()).isNull();
    assertThat(r.objectSize()).isEqualTo(3L);
    GetObjectAttributesResponse withSum = ObjectAttributesHandler.answer(all,
        single.withFlexible(FlexibleChecksum.fullObject(ChecksumType.CRC32, "0badf00d")));
    assertThat(withSum.checksum().element()).isEqualTo("ChecksumCRC32");
    assertThat(withSum.checksum().value()).isEqualTo("C63wDQ==");
    assertThat(withSum.checksum().type()).isEqualTo("FULL_OBJECT");
  }
}
