package io.granary.backend.s3;

import io.granary.backend.PutAttributes;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * Uploads a large file as an S3 multipart upload, one part at a time, each part streamed from its file range and
 * sent with its own Content-MD5 so the remote verifies every part. Any failure aborts the upload, so no orphaned
 * parts keep costing storage.
 */
final class S3MultipartUpload {
  private final S3Client s3;
  private final String bucket;
  private final String key;
  private final long partSize;

  S3MultipartUpload(S3Client s3, String bucket, String key, long partSize) {
    this.s3 = s3;
    this.bucket = bucket;
    this.key = key;
    this.partSize = partSize;
  }

  CompleteMultipartUploadResponse upload(Path file, long size, PutAttributes attributes) throws IOException {
    String uploadId = s3.createMultipartUpload(r -> r.bucket(bucket).key(key)
        .contentType(attributes.contentType()).metadata(attributes.userMeta())).uploadId();
    boolean done = false;
    try {
      List<CompletedPart> parts = new ArrayList<>();
      for (long start = 0; start < size; start += partSize) {
        int number = parts.size() + 1;
        long len = Math.min(partSize, size - start);
        String md5 = md5Base64(file, start, len);
        String etag = s3.uploadPart(r -> r.bucket(bucket).key(key).uploadId(uploadId).partNumber(number)
                .contentLength(len).contentMD5(md5),
            RequestBody.fromContentProvider(new FileRangeContent(file, start, len), len,
                "application/octet-stream")).eTag();
        parts.add(CompletedPart.builder().partNumber(number).eTag(etag).build());
      }
      CompleteMultipartUploadResponse response = s3.completeMultipartUpload(r -> r.bucket(bucket).key(key)
          .uploadId(uploadId).multipartUpload(m -> m.parts(parts)));
      done = true;
      return response;
    } finally {
      if (!done) {
        abort(uploadId);
      }
    }
  }

  private void abort(String uploadId) {
    try {
      s3.abortMultipartUpload(r -> r.bucket(bucket).key(key).uploadId(uploadId));
    } catch (RuntimeException ignored) {
      // Best effort: the original failure is what the caller needs; a bucket lifecycle rule reaps leftovers.
    }
  }

  /** MD5 of one file range, read in 64 KiB steps (a second pass over the part, usually from page cache). */
  static String md5Base64(Path file, long start, long len) throws IOException {
    MessageDigest md;
    try {
      md = MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long pos = start;
      long end = start + len;
      while (pos < end) {
        buf.clear().limit((int) Math.min(buf.capacity(), end - pos));
        int n = ch.read(buf, pos);
        if (n < 0) {
          throw new IOException("file " + file + " shrank while uploading");
        }
        md.update(buf.array(), 0, n);
        pos += n;
      }
    }
    return Base64.getEncoder().encodeToString(md.digest());
  }
}
