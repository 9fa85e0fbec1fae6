package io.granary.target.s3;

import io.granary.common.s3.S3ApiException;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The bytes of a copy source UploadPartCopy copies ({@code x-amz-copy-source-range: bytes=first-last}, both
 * inclusive and zero-based). S3 takes only that form: no suffix ({@code bytes=-N}), no open end, one range.
 *
 * @param first offset of the first byte copied
 * @param last offset of the last byte copied
 */
record CopyRange(long first, long last) {
  static final String HEADER = "x-amz-copy-source-range";
  /** S3's largest copy source (and part): 5 GiB. */
  static final long MAX_COPY = 5L << 30;
  private static final Pattern FORM = Pattern.compile("bytes=(\\d{1,19})-(\\d{1,19})");

  /** The range the header names, null when it is absent; 400 InvalidArgument when it is malformed. */
  static CopyRange parse(String header) {
    if (header == null) {
      return null;
    }
    Matcher m = FORM.matcher(header.trim());
    if (m.matches()) {
      try {
        long first = Long.parseLong(m.group(1));
        long last = Long.parseLong(m.group(2));
        if (first <= last) {
          return new CopyRange(first, last);
        }
      } catch (NumberFormatException tooLarge) {
        // refused below
      }
    }
    throw S3ApiException.invalidArgument("The x-amz-copy-source-range value must be of the form bytes=first-last "
        + "where first and last are the zero-based offsets of the first and last bytes to copy", HEADER, header);
  }

  long length() {
    return last - first + 1;
  }

  /** 416 InvalidRange unless the range lies inside a source of {@code size} bytes (S3 does not clip it). */
  void requireWithin(long size) {
    if (last >= size) {
      throw new S3ApiException(HttpResponseStatus.REQUESTED_RANGE_NOT_SATISFIABLE, "InvalidRange",
          "The requested range bytes=" + first + "-" + last + " is not satisfiable: the copy source is " + size
              + " bytes");
    }
  }

  /** 400 InvalidRequest when {@code length} bytes are more than one copy may take. */
  static void requireCopyable(long length) {
    if (length > MAX_COPY) {
      throw new S3ApiException(HttpResponseStatus.BAD_REQUEST, "InvalidRequest", "The specified copy source is "
          + "larger than the maximum allowable size for a copy source: " + MAX_COPY);
    }
  }
}
