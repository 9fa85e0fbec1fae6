package io.granary.common.s3;

/**
 * The ListMultipartUploads answer ({@code GET /bucket?uploads}). Elements, in S3's order: Bucket, KeyMarker,
 * UploadIdMarker, NextKeyMarker, NextUploadIdMarker (the four markers always, empty when none), Delimiter,
 * Prefix, EncodingType, MaxUploads, IsTruncated, then each Upload (Key, UploadId, Initiator, Owner,
 * StorageClass, Initiated) and CommonPrefixes.
 *
 * <p>With {@code urlEncoded} KeyMarker, NextKeyMarker, Delimiter, Prefix, each Key and each common prefix are
 * URL-encoded ({@link S3UrlEncoding}); upload ids are not.
 *
 * @param bucket bucket name
 * @param prefix the {@code prefix} asked for, or {@code null}
 * @param delimiter the {@code delimiter} asked for, or {@code null}
 * @param keyMarker the {@code key-marker} asked for, or {@code null}
 * @param uploadIdMarker the {@code upload-id-marker} asked for, or {@code null}
 * @param maxUploads the {@code max-uploads} in force
 * @param urlEncoded whether {@code encoding-type=url} was asked for
 * @param owner initiator and owner of every upload, or {@code null} to leave them out
 * @param listing the page
 */
public record ListMultipartUploadsResult(String bucket, String prefix, String delimiter, String keyMarker,
    String uploadIdMarker, int maxUploads, boolean urlEncoded, Owner owner, MultipartUploadListing listing)
    implements S3XmlDocument {

  @Override
  public void write(S3XmlWriter xml) {
    xml.startRoot("ListMultipartUploadsResult")
        .element("Bucket", bucket)
        .element("KeyMarker", encoded(keyMarker))
        .element("UploadIdMarker", uploadIdMarker)
        .element("NextKeyMarker", listing.truncated() ? encoded(listing.nextKeyMarker()) : null)
        .element("NextUploadIdMarker", listing.truncated() ? listing.nextUploadIdMarker() : null)
        .nonEmpty("Delimiter", encoded(delimiter))
        .element("Prefix", encoded(prefix));
    if (urlEncoded) {
      xml.element("EncodingType", S3UrlEncoding.URL);
    }
    xml.element("MaxUploads", maxUploads).element("IsTruncated", listing.truncated());
    for (ListedUpload u : listing.uploads()) {
      xml.start("Upload")
          .element("Key", encoded(u.key()))
          .element("UploadId", u.uploadId())
          .owner("Initiator", owner)
          .owner("Owner", owner)
          .element("StorageClass", ListedObject.STANDARD)
          .element("Initiated", u.initiated())
          .end("Upload");
    }
    for (String p : listing.commonPrefixes()) {
      xml.start("CommonPrefixes").element("Prefix", encoded(p)).end("CommonPrefixes");
    }
    xml.end("ListMultipartUploadsResult");
  }

  private String encoded(String s) {
    return urlEncoded ? S3UrlEncoding.encode(s) : s;
  }
}
