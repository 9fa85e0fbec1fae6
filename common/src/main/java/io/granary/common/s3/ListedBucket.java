package io.granary.common.s3;

import java.time.Instant;

/**
 * One bucket of a ListBuckets answer.
 *
 * @param name bucket name
 * @param creationDate when the bucket was created
 */
public record ListedBucket(String name, Instant creationDate) {
}
