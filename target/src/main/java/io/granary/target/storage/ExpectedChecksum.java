package io.granary.target.storage;

import io.granary.clustermap.bucket.ChecksumType;

/** A checksum the client sent with a PUT; the body must hash to it or nothing is stored. */
public record ExpectedChecksum(ChecksumType type, String hex) {
}
