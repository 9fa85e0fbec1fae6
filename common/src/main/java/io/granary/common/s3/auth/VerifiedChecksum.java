package io.granary.common.s3.auth;

/**
 * A checksum trailer that matched the decoded body.
 *
 * @param algorithm which checksum
 * @param base64 its value as S3 reports it (base64 of the big-endian CRC or of the digest)
 */
public record VerifiedChecksum(ChecksumAlgorithm algorithm, String base64) {
}
