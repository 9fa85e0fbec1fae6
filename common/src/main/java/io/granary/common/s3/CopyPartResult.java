package io.granary.common.s3;

import java.time.Instant;

/**
 * The UploadPartCopy answer ({@code PUT /bucket/key?partNumber=N&uploadId=...} with {@code x-amz-copy-source}):
 * LastModified, ETag of the new part.
 *
 * @param lastModified when the part was written
 * @param etag its ETag, quoted or not (written quoted)
 */
public record CopyPartResult(Instant lastModified, String etag) implements S3XmlDocument {

  @Override
  public void write(S3XmlWriter xml) {
    xml.startRoot("CopyPartResult")
        .element("LastModified", lastModified)
        .element("ETag", ETags.quoted(etag))
        .end("CopyPartResult");
  }
}
