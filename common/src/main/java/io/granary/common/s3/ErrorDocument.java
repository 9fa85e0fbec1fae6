package io.granary.common.s3;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The S3 error body: {@code <Error><Code/><Message/>...details...<Resource/><RequestId/><HostId/></Error>}.
 * Like S3's own, it has no namespace. Details are extra elements some errors carry ({@code BucketName},
 * {@code Key}, {@code ArgumentName}...), written in order after Message. Resource, RequestId and HostId are
 * left out when {@code null}.
 *
 * @param code S3 error code
 * @param message what went wrong
 * @param details extra elements, name to text, in order
 * @param resource the bucket or object the request named, e.g. {@code /bucket/key}
 * @param requestId the request id, also sent as {@code x-amz-request-id}
 * @param hostId the answering node, also sent as {@code x-amz-id-2}
 */
public record ErrorDocument(String code, String message, Map<String, String> details, String resource,
    String requestId, String hostId) implements S3XmlDocument {

  public ErrorDocument {
    details = details == null || details.isEmpty()
        ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(details));
  }

  @Override
  public void write(S3XmlWriter xml) {
    xml.start("Error").element("Code", code).element("Message", message == null ? "" : message);
    details.forEach(xml::optional);
    xml.optional("Resource", resource).optional("RequestId", requestId).optional("HostId", hostId).end("Error");
  }
}
