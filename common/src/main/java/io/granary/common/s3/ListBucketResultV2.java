package io.granary.common.s3;

/**
 * The ListObjectsV2 answer ({@code GET /bucket?list-type=2}). Elements, in S3's order: Name, Prefix, StartAfter,
 * ContinuationToken, NextContinuationToken, KeyCount, MaxKeys, Delimiter, EncodingType, IsTruncated, then
 * Contents and CommonPrefixes. Prefix is always written (empty when none), ContinuationToken whenever one was
 * asked for (an empty one too, as S3 echoes it); the others only when they have a value. KeyCount counts objects and common prefixes, as S3 does.
 *
 * <p>With {@code urlEncoded} ({@code encoding-type=url}) Prefix, StartAfter, Delimiter, each Key and each common
 * prefix are URL-encoded ({@link S3UrlEncoding}); the continuation tokens are not.
 *
 * @param bucket bucket name
 * @param prefix the {@code prefix} asked for, or {@code null}
 * @param delimiter the {@code delimiter} asked for, or {@code null}
 * @param maxKeys the {@code max-keys} in force
 * @param continuationToken the {@code continuation-token} asked for, or {@code null}
 * @param startAfter the {@code start-after} asked for, or {@code null}
 * @param urlEncoded whether {@code encoding-type=url} was asked for
 * @param owner written in each Contents when {@code fetch-owner=true}, else {@code null}
 * @param listing the page
 */
public record ListBucketResultV2(String bucket, String prefix, String delimiter, int maxKeys,
    String continuationToken, String startAfter, boolean urlEncoded, Owner owner, ObjectListing listing)
    implements S3XmlDocument {

  /** The KeyCount element: objects plus common prefixes of this page. */
  public int keyCount() {
    return listing.objects().size() + listing.commonPrefixes().size();
  }

  @Override
  public void write(S3XmlWriter xml) {
    xml.startRoot("ListBucketResult")
        .element("Name", bucket)
        .element("Prefix", encoded(prefix == null ? "" : prefix))
        .nonEmpty("StartAfter", encoded(startAfter));
    if (continuationToken != null) {
      xml.element("ContinuationToken", continuationToken); // echoed as asked, an empty one too
    }
    if (listing.truncated()) {
      xml.nonEmpty("NextContinuationToken", listing.next());
    }
    xml.element("KeyCount", keyCount())
        .element("MaxKeys", maxKeys)
        .nonEmpty("Delimiter", encoded(delimiter));
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
