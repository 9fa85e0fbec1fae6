package io.granary.common.s3;

import java.time.Instant;

/**
 * One uploaded part of a ListParts answer.
 *
 * @param partNumber 1 to 10000
 * @param lastModified when the part was uploaded
 * @param etag the part's ETag, quoted or not (written quoted)
 * @param size part size in bytes
 */
public record ListedPart(int partNumber, Instant lastModified, String etag, long size) {
}
