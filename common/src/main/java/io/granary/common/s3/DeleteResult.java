package io.granary.common.s3;

import java.util.List;

/**
 * The DeleteObjects answer: a {@code <Deleted>} (Key, VersionId) for each object deleted, then an {@code <Error>}
 * (Key, VersionId, Code, Message) for each failure. In quiet mode only the errors are listed. S3 reports a key
 * that did not exist as deleted, so a caller puts ObjectNotFound in {@code deleted}, not in {@code errors}.
 *
 * @param quiet the request's Quiet flag
 * @param deleted the objects deleted (or already absent)
 * @param errors the objects that could not be deleted
 */
public record DeleteResult(boolean quiet, List<ObjectIdentifier> deleted, List<DeleteError> errors)
    implements S3XmlDocument {

  public DeleteResult {
    deleted = List.copyOf(deleted);
    errors = List.copyOf(errors);
  }

  @Override
  public void write(S3XmlWriter xml) {
    xml.startRoot("DeleteResult");
    if (!quiet) {
      for (ObjectIdentifier d : deleted) {
        xml.start("Deleted").element("Key", d.key()).optional("VersionId", d.versionId()).end("Deleted");
      }
    }
    for (DeleteError e : errors) {
      xml.start("Error")
          .element("Key", e.key())
          .optional("VersionId", e.versionId())
          .element("Code", e.code())
          .element("Message", e.message())
          .end("Error");
    }
    xml.end("DeleteResult");
  }
}
