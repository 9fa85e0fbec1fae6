package io.granary.common.s3;

import java.util.List;

/**
 * The ListParts answer ({@code GET /bucket/key?uploadId=...}). Elements, in S3's order: Bucket, Key, UploadId,
 * Initiator and Owner (when an owner is given), StorageClass, PartNumberMarker, NextPartNumberMarker (when
 * truncated: the last part listed, as S3 defines it), MaxParts, IsTruncated, then each Part with PartNumber,
 * LastModified, ETag, Size.
 *
 * @param bucket bucket name
 * @param key object key
 * @param uploadId the upload
 * @param partNumberMarker the {@code part-number-marker} asked for; 0 when none
 * @param maxParts the {@code max-parts} in force
 * @param truncated whether more parts follow
 * @param parts the parts of this page, by ascending part number
 * @param owner initiator and owner of the upload, or {@code null} to leave both out
 */
public record ListPartsResult(String bucket, String key, String uploadId, int partNumberMarker, int maxParts,
    boolean truncated, List<ListedPart> parts, Owner owner) implements S3XmlDocument {

  public ListPartsResult {
    parts = List.copyOf(parts);
  }

  /** The part number to continue after: the last part listed; 0 when none is. */
  public int nextPartNumberMarker() {
    return parts.isEmpty() ? 0 : parts.get(parts.size() - 1).partNumber();
  }

  @Override
  public void write(S3XmlWriter xml) {
    xml.startRoot("ListPartsResult")
        .element("Bucket", bucket)
        .element("Key", key)
        .element("UploadId", uploadId)
        .owner("Initiator", owner)
        .owner("Owner", owner)
        .element("StorageClass", ListedObject.STANDARD)
        .element("PartNumberMarker", partNumberMarker);
    if (truncated) {
      xml.element("NextPartNumberMarker", nextPartNumberMarker());
    }
    xml.element("MaxParts", maxParts).element("IsTruncated", truncated);
    for (ListedPart p : parts) {
      xml.start("Part")
          .element("PartNumber", p.partNumber())
          .element("LastModified", p.lastModified())
          .element("ETag", ETags.quoted(p.etag()))
          .element("Size", p.size())
          .end("Part");
    }
    xml.end("ListPartsResult");
  }
}
