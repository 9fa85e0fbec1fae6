package io.granary.common.s3;

import java.io.InputStream;
import java.util.Optional;

/**
 * The optional body of CreateBucket ({@code PUT /bucket}):
 *
 * <pre>{@code
 * <CreateBucketConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
 *   <LocationConstraint>eu-west-1</LocationConstraint>
 * </CreateBucketConfiguration>
 * }</pre>
 *
 * <p>An empty (or whitespace) body is the common case and means no constraint. Other elements (directory-bucket
 * {@code Location} and {@code Bucket}) are ignored.
 *
 * @param locationConstraint the region asked for, or {@code null}
 */
public record CreateBucketConfiguration(String locationConstraint) {
  public static final int MAX_BYTES = 1 << 20;
  static final int MAX_ELEMENTS = 100;

  /** The requested region, when one was given and not blank. */
  public Optional<String> location() {
    return locationConstraint == null || locationConstraint.isBlank()
        ? Optional.empty() : Optional.of(locationConstraint.strip());
  }

  /** Reads and parses the body from {@code in} (at most {@link #MAX_BYTES}). */
  public static CreateBucketConfiguration parse(InputStream in) {
    return parse(RequestXmlReader.readCapped(in, MAX_BYTES));
  }

  /** Parses {@code body}; {@code null}, empty or whitespace-only is no configuration. */
  public static CreateBucketConfiguration parse(byte[] body) {
    if (body != null && body.length > MAX_BYTES) {
      throw S3ApiException.tooLarge(MAX_BYTES);
    }
    if (body == null || RequestXmlReader.isBlank(body)) {
      return new CreateBucketConfiguration(null);
    }
    XmlElement root = RequestXmlReader.parse(body, "CreateBucketConfiguration", MAX_BYTES, MAX_ELEMENTS);
    return new CreateBucketConfiguration(root.childText("LocationConstraint"));
  }
}
