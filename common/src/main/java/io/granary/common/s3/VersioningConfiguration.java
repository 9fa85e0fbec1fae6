package io.granary.common.s3;

/** GetBucketVersioning's answer for a bucket that never had versioning: an empty configuration, as S3 sends. */
public record VersioningConfiguration() implements S3XmlDocument {
  @Override
  public void write(S3XmlWriter xml) {
    xml.startRoot("VersioningConfiguration");
    xml.end("VersioningConfiguration");
  }
}
