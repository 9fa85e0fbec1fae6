package io.granary.common.s3;

import java.util.List;

/**
 * One page of the multipart uploads in progress in a bucket, sorted by key then by initiation time.
 *
 * @param uploads the uploads of this page
 * @param commonPrefixes the common prefixes a delimiter rolled up
 * @param truncated whether more entries follow
 * @param nextKeyMarker where the next page starts (the last key of this page) when truncated, else {@code null}
 * @param nextUploadIdMarker the upload id that goes with {@code nextKeyMarker}, else {@code null}
 */
public record MultipartUploadListing(List<ListedUpload> uploads, List<String> commonPrefixes, boolean truncated,
    String nextKeyMarker, String nextUploadIdMarker) {
  public MultipartUploadListing {
    uploads = List.copyOf(uploads);
    commonPrefixes = List.copyOf(commonPrefixes);
  }
}
