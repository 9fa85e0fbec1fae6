package io.granary.target.multipart;

import io.granary.clustermap.acl.CannedAcl;
import java.util.Map;

/**
 * A multipart upload in progress, recorded on the key's HRW mountpath of the target that created it.
 *
 * @param uploadId the id clients pass back with every part
 * @param name the object key
 * @param initiated when it was created, epoch ms (for listing and for the abandoned-upload sweep)
 * @param contentType the Content-Type the completed object will have, or null
 * @param userMeta user metadata the completed object will have
 * @param headers standard headers (Cache-Control...) the completed object will have; absent in records written
 *     before they were kept
 * @param acl the canned ACL the completed object will have; private in records written before ACLs were kept
 * @param checksum the flexible checksum the upload was created with, or null (none; records written before they were
 *     kept)
 */
public record Upload(String uploadId, String name, long initiated, String contentType, Map<String, String> userMeta,
    Map<String, String> headers, CannedAcl acl, UploadChecksum checksum) {
  public Upload {
    acl = acl == null ? CannedAcl.PRIVATE : acl;
    userMeta = userMeta == null ? Map.of() : Map.copyOf(userMeta);
    headers = headers == null ? Map.of() : Map.copyOf(headers);
  }

  public Upload(String uploadId, String name, long initiated, String contentType, Map<String, String> userMeta,
      Map<String, String> headers, CannedAcl acl) {
    this(uploadId, name, initiated, contentType, userMeta, headers, acl, null);
  }
}
