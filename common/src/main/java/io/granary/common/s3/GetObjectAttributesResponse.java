package io.granary.common.s3;

/**
 * The GetObjectAttributes answer ({@code GET /bucket/key?attributes}): only the attributes the request named in
 * {@code x-amz-object-attributes}, in S3's order: ETag (unquoted, as S3 writes it here), Checksum, ObjectParts,
 * StorageClass, ObjectSize. Each field is null when it was not asked for or the object has none (a checksum the
 * client never gave, parts of an object written by one PUT).
 *
 * @param etag the object's ETag without quotes
 * @param checksum the object's flexible checksum, with its type
 * @param parts a page of the parts of an object completed from a multipart upload
 * @param storageClass {@code STANDARD}
 * @param objectSize the object's length in bytes
 */
public record GetObjectAttributesResponse(String etag, ObjectChecksum checksum, ObjectPartsPage parts,
    String storageClass, Long objectSize) implements S3XmlDocument {

  @Override
  public void write(S3XmlWriter xml) {
    xml.startRoot("GetObjectAttributesResponse");
    if (etag != null) {
      xml.element("ETag", ETags.unquoted(etag));
    }
    if (checksum != null) {
      xml.start("Checksum");
      checksum.writeValue(xml);
      if (checksum.type() != null) {
        xml.element("ChecksumType", checksum.type());
      }
      xml.end("Checksum");
    }
    if (parts != null) {
      parts.write(xml);
    }
    if (storageClass != null) {
      xml.element("StorageClass", storageClass);
    }
    if (objectSize != null) {
      xml.element("ObjectSize", objectSize);
    }
    xml.end("GetObjectAttributesResponse");
  }
}
