package io.granary.common.s3;

/**
 * The CompleteMultipartUpload answer: Location, Bucket, Key, ETag, and the object's flexible checksum with its
 * ChecksumType when the upload was created with a checksum algorithm.
 *
 * @param location URL of the new object
 * @param bucket bucket name
 * @param key object key
 * @param etag the object's ETag, quoted or not (written quoted); for S3 clients a multipart ETag is
 *     {@code md5-of-part-md5s-N}
 * @param checksum the completed object's flexible checksum, or null
 */
public record CompleteMultipartUploadResult(String location, String bucket, String key, String etag,
    ObjectChecksum checksum) implements S3XmlDocument {

  public CompleteMultipartUploadResult(String location, String bucket, String key, String etag) {
    this(location, bucket, key, etag, null);
  }

  @Override
  public void write(S3XmlWriter xml) {
    xml.startRoot("CompleteMultipartUploadResult")
        .element("Location", location)
        .element("Bucket", bucket)
        .element("Key", key)
        .element("ETag", ETags.quoted(etag));
    if (checksum != null) {
      checksum.writeValue(xml);
      xml.element("ChecksumType", checksum.type());
    }
    xml.end("CompleteMultipartUploadResult");
  }
}
