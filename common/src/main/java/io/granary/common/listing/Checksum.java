package io.granary.common.listing;

import io.granary.clustermap.bucket.ChecksumType;

/** A content checksum: algorithm and lowercase hex value. */
public record Checksum(ChecksumType type, String value) {
}
