package io.granary.common.s3;

/**
 * One {@code <Part>} of a CompleteMultipartUpload request.
 *
 * @param partNumber 1 to {@value CompleteMultipartUpload#MAX_PART_NUMBER}
 * @param etag the ETag exactly as the client sent it, quoted or not
 */
public record CompletedPart(int partNumber, String etag) {

  /** The ETag without quotes or surrounding whitespace, for comparing with the stored part's ETag. */
  public String normalizedEtag() {
    return ETags.unquoted(etag);
  }
}
