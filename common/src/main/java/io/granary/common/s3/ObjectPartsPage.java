package io.granary.common.s3;

import java.util.List;

/**
 * The {@code ObjectParts} of a GetObjectAttributes answer: one page of the parts an object was completed from.
 *
 * @param partsCount how many parts the object has in all
 * @param partNumberMarker the {@code x-amz-part-number-marker} asked for; 0 when none
 * @param maxParts the {@code x-amz-max-parts} in force
 * @param truncated whether parts after this page follow
 * @param parts the parts of this page, by ascending part number
 */
public record ObjectPartsPage(int partsCount, int partNumberMarker, int maxParts, boolean truncated,
    List<Part> parts) {
  public ObjectPartsPage {
    parts = List.copyOf(parts);
  }

  /**
   * One part.
   *
   * @param number 1 to 10000
   * @param size its length in bytes
   * @param checksum its flexible checksum, or null when none is kept
   */
  public record Part(int number, long size, ObjectChecksum checksum) {
  }

  /** Where the next page starts: the last part listed (S3 defines it so); 0 when none is. */
  public int nextPartNumberMarker() {
    return parts.isEmpty() ? 0 : parts.get(parts.size() - 1).number();
  }

  void write(S3XmlWriter xml) {
    xml.start("ObjectParts")
        .element("PartsCount", partsCount)
        .element("PartNumberMarker", partNumberMarker)
        .element("NextPartNumberMarker", nextPartNumberMarker())
        .element("MaxParts", maxParts)
        .element("IsTruncated", truncated);
    for (Part p : parts) {
      xml.start("Part");
      if (p.checksum() != null) {
        p.checksum().writeValue(xml);
      }
      xml.element("PartNumber", p.number()).element("Size", p.size()).end("Part");
    }
    xml.end("ObjectParts");
  }
}
