package io.granary.common.s3;

import java.time.Instant;

/**
 * The CopyObject answer ({@code PUT /bucket/key} with {@code x-amz-copy-source}): LastModified, ETag of the new
 * object.
 *
 * @param lastModified when the copy was written
 * @param etag its ETag, quoted or not (written quoted)
 */
public record CopyObjectResult(Instant lastModified, String etag) implements S3XmlDocument {

  @Override
  public void write(S3XmlWriter xml) {
    xml.startRoot("CopyObjectResult")
        .element("LastModified", lastModified)
        .element("ETag", ETags.quoted(etag))
        .end("CopyObjectResult");
  }
}
