package io.granary.common.s3;

/**
 * The ListObjects (version 1) answer ({@code GET /bucket}). Elements, in S3's order: Name, Prefix, Marker,
 * NextMarker, MaxKeys, Delimiter, EncodingType, IsTruncated, then Contents and CommonPrefixes. Prefix and
 * Marker are always written (empty when none). NextMarker is written, as S3 does, only when a delimiter was given
 * and the page is truncated; without a delimiter clients continue from the last Key.
 *
 * <p>With {@code urlEncoded} Prefix, Marker, NextMarker, Delimiter, each Key and each common prefix are
 * URL-encoded ({@link S3UrlEncoding}).
 *
 * @param bucket bucket name
 * @param prefix the {@code prefix} asked for, or {@code null}
 * @param marker the {@code marker} asked for, or {@code null}
 * @param delimiter the {@code delimiter} asked for, or {@code null}
 * @param maxKeys the {@code max-keys} in force
 * @param urlEncoded whether {@code encoding-type=url} was asked for
 * @param owner written in each Contents (S3 always does in version 1), or {@code null} to leave it out
 * @param listing the page; its {@code next} is the NextMarker
 */
public record ListBucketResultV1(String bucket, String prefix, String marker, String delimiter, int maxKeys,
    boolean urlEncoded, Owner owner, ObjectListing listing) implements S3XmlDocument {

  @Override
  public void write(S3XmlWriter xml) {
    xml.startRoot("ListBucketResult")
        .element("Name", bucket)
        .element("Prefix", encoded(prefix == null ? "" : prefix))
        .element("Marker", encoded(marker == null ? "" : marker));
    if (listing.truncated() && delimiter != null && !delimiter.isEmpty()) {
      xml.nonEmpty("NextMarker", encoded(listing.next()));
    }
    xml.element("MaxKeys", maxKeys).nonEmpty("Delimiter", encoded(delimiter));
    if (urlEncoded) {
      xml.element("EncodingType", S3UrlEncoding.URL);
    }
    xml.element("IsTruncated", listing.truncated());
    listing.writeEntries(xml, urlEncoded, owner);
    xml.end("ListBucketResult");
  }

  private String encoded(String s) {
    return urlEncoded ? S3UrlEncoding.encode(s) : s;
  }
}
