package io.granary.common.s3;

/**
 * The CreateMultipartUpload answer ({@code POST /bucket/key?uploads}): Bucket, Key, UploadId.
 *
 * @param bucket bucket name
 * @param key object key
 * @param uploadId the new upload's id
 */
public record InitiateMultipartUploadResult(String bucket, String key, String uploadId) implements S3XmlDocument {

  @Override
  public void write(S3XmlWriter xml) {
    xml.startRoot("InitiateMultipartUploadResult")
        .element("Bucket", bucket)
        .element("Key", key)
        .element("UploadId", uploadId)
        .end("InitiateMultipartUploadResult");
  }
}
