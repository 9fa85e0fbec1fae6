package io.granary.common.s3;

import java.util.List;

/**
 * One page of a bucket listing, as the S3 front end computed it: the objects and the common prefixes (the
 * "directories" a delimiter rolls up), both in key order, and where the next page starts.
 *
 * @param objects the objects of this page
 * @param commonPrefixes the common prefixes of this page, each ending with the delimiter
 * @param truncated whether more entries follow
 * @param next where the next page starts when {@code truncated}: the NextContinuationToken of ListObjectsV2,
 *     or the NextMarker of ListObjects (the last key or common prefix of this page); {@code null} otherwise
 */
public record ObjectListing(List<ListedObject> objects, List<String> commonPrefixes, boolean truncated, String next) {
  public ObjectListing {
    objects = List.copyOf(objects);
    commonPrefixes = List.copyOf(commonPrefixes);
  }

  /** Contents then CommonPrefixes, as both list versions write them; {@code owner} goes into each Contents. */
  void writeEntries(S3XmlWriter xml, boolean urlEncoded, Owner owner) {
    for (ListedObject o : objects) {
      xml.start("Contents")
          .element("Key", urlEncoded ? S3UrlEncoding.encode(o.key()) : o.key())
          .element("LastModified", o.lastModified())
          .element("ETag", ETags.quoted(o.etag()))
          .element("Size", o.size())
          .owner("Owner", owner)
          .element("StorageClass", o.storageClass())
          .end("Contents");
    }
    for (String p : commonPrefixes) {
      xml.start("CommonPrefixes").element("Prefix", urlEncoded ? S3UrlEncoding.encode(p) : p).end("CommonPrefixes");
    }
  }
}
