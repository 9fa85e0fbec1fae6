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
 */
public record Part(int number, long size, String md5, long mtime, String file) {
}
