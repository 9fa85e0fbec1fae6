package io.granary.target.multipart;

/**
 * One uploaded part.
 *
 * @param number 1 to 10000
 * @param size bytes
 * @param md5 lowercase hex MD5 of the part: its ETag
 * @param mtime when it was stored, epoch ms
 * @param file the part's file name inside the upload's directory (a new name per upload of the part, so a
 *     record and the file it names always match)
 * @param checksum lowercase hex of the part's flexible checksum, of its upload's algorithm, or null (an upload without
 *     one; records written before they were kept)
 */
public record Part(int number, long size, String md5, long mtime, String file, String checksum) {
  public Part(int number, long size, String md5, long mtime, String file) {
    this(number, size, md5, mtime, file, null);
  }
}
