package io.granary.common.s3;

/**
 * The GetBucketLocation answer ({@code GET /bucket?location}): {@code <LocationConstraint>region</...>}. As S3
 * does, us-east-1 (and no region) is an empty element, which SDKs read as us-east-1.
 *
 * @param region the bucket's region, or {@code null}
 */
public record LocationConstraint(String region) implements S3XmlDocument {
  static final String US_EAST_1 = "us-east-1";

  @Override
  public void write(S3XmlWriter xml) {
    String r = region == null || region.equals(US_EAST_1) ? null : region;
    xml.startRoot("LocationConstraint");
    if (r != null) {
      xml.text(r);
    }
    xml.end("LocationConstraint");
  }
}
