package io.granary.common.s3;

import java.time.Instant;

/**
 * One multipart upload in progress, in a ListMultipartUploads answer.
 *
 * @param key object key
 * @param uploadId upload id
 * @param initiated when the upload was created
 */
public record ListedUpload(String key, String uploadId, Instant initiated) {
}
