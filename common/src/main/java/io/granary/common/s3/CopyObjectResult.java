package io.granary.common.s3;

import java.time.Instant;

/**
 * The CopyObject answer ({@code PUT /bucket/key} with {@code x-amz-copy-source}): LastModified, ETag of the new
 * object, and its flexible checksum with ChecksumType when the copy keeps one.
 *
 * @param lastModified when the copy was written
 * @param etag its ETag, quoted or not (written quoted)
 * @param checksum the copy's flexible checksum (asked for with {@code x-amz-checksum-algorithm}), or null
 */
public record CopyObjectResult(Instant lastModified, String etag, ObjectChecksum checksum) implements S3XmlDocument {

  public CopyObjectResult(Instant lastModified, String etag) {
    this(lastModified, etag, null);
  }

  @Override
  public void write(S3XmlWriter xml) {
    xml.startRoot("CopyObjectResult")
        .element("LastModified", lastModified)
        .element("ETag", ETags.quoted(etag));
    if (checksum != null) {
      checksum.writeValue(xml);
      xml.element("ChecksumType", checksum.type());
    }
    xml.end("CopyObjectResult");
  }
}
