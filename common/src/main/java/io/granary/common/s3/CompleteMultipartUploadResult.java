package io.granary.common.s3;

/**
 * The CompleteMultipartUpload answer: Location, Bucket, Key, ETag.
 *
 * @param location URL of the new object
 * @param bucket bucket name
 * @param key object key
 * @param etag the object's ETag, quoted or not (written quoted); for S3 clients a multipart ETag is
 *     {@code md5-of-part-md5s-N}
 */
public record CompleteMultipartUploadResult(String location, String bucket, String key, String etag)
    implements S3XmlDocument {

  @Override
  public void write(S3XmlWriter xml) {
    xml.startRoot("CompleteMultipartUploadResult")
        .element("Location", location)
        .element("Bucket", bucket)
        .element("Key", key)
        .element("ETag", ETags.quoted(etag))
        .end("CompleteMultipartUploadResult");
  }
}
