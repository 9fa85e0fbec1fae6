package io.granary.target.multipart;

import io.granary.target.meta.FlexibleChecksum;

/**
 * What a completed multipart upload answered, kept for its retry window ({@link CompletedUploads}).
 *
 * @param uploadId the upload's id
 * @param name the object key it completed
 * @param etag the ETag the completion answered ({@code md5-of-part-md5s-N}, or the remote store's)
 * @param size bytes of the object it committed
 * @param mtime the committed object's mtime, epoch ms
 * @param completed when it completed, epoch ms (the retry window counts from here)
 * @param partsHash {@link CompletedUploads#partsHash} of the part list it was completed with
 * @param checksum the flexible checksum the completed object got, or null
 * @param parts how many parts it was completed from
 */
public record CompletedUpload(String uploadId, String name, String etag, long size, long mtime, long completed,
    String partsHash, FlexibleChecksum checksum, int parts) {
  public CompletedUpload(String uploadId, String name, String etag, long size, long mtime, long completed,
      String partsHash) {
    this(uploadId, name, etag, size, mtime, completed, partsHash, null, 0);
  }
}
