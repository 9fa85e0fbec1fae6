package io.granary.testkit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** JSON resources of the fake GCS server, shaped like the JSON API's (numbers as strings, RFC 3339 times). */
final class GcsJson {
  static final ObjectMapper MAPPER = new ObjectMapper();
  private static final DateTimeFormatter RFC3339 =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private GcsJson() {
  }

  static String time(Instant t) {
    return RFC3339.format(t);
  }

  static ObjectNode object(GcsObject o, String base) {
    String path = "b/" + PercentCodec.encode(o.bucket()) + "/o/" + PercentCodec.encode(o.name());
    ObjectNode n = MAPPER.createObjectNode()
        .put("kind", "storage#object")
        .put("id", o.bucket() + "/" + o.name() + "/" + o.generation())
        .put("selfLink", base + "/storage/v1/" + path)
        .put("mediaLink", base + "/download/storage/v1/" + path + "?generation=" + o.generation() + "&alt=media")
        .put("name", o.name())
        .put("bucket", o.bucket())
        .put("generation", Long.toString(o.generation()))
        .put("metageneration", Long.toString(o.metageneration()))
        .put("contentType", o.contentType())
        .put("storageClass", "STANDARD")
        .put("size", Long.toString(o.size()))
        .put("md5Hash", o.md5Hash())
        .put("crc32c", o.crc32c())
        .put("etag", o.etag())
        .put("timeCreated", time(o.timeCreated()))
        .put("updated", time(o.updated()))
        .put("timeStorageClassUpdated", time(o.timeCreated()));
    if (!o.metadata().isEmpty()) {
      ObjectNode m = n.putObject("metadata");
      o.metadata().forEach(m::put);
    }
    return n;
  }

  static ObjectNode bucket(GcsStore.Bucket b, String base) {
    return MAPPER.createObjectNode()
        .put("kind", "storage#bucket")
        .put("id", b.name())
        .put("selfLink", base + "/storage/v1/b/" + PercentCodec.encode(b.name()))
        .put("projectNumber", "0")
        .put("name", b.name())
        .put("timeCreated", time(b.created()))
        .put("updated", time(b.created()))
        .put("metageneration", "1")
        .put("location", "US")
        .put("locationType", "multi-region")
        .put("storageClass", "STANDARD")
        .put("etag", "CAE=");
  }

  static ObjectNode listing(GcsStore.Listing l, String base) {
    ObjectNode n = MAPPER.createObjectNode().put("kind", "storage#objects");
    if (l.nextPageToken() != null) {
      n.put("nextPageToken", l.nextPageToken());
    }
    if (!l.prefixes().isEmpty()) {
      ArrayNode p = n.putArray("prefixes");
      l.prefixes().forEach(p::add);
    }
    if (!l.items().isEmpty()) {
      ArrayNode items = n.putArray("items");
      l.items().forEach(o -> items.add(object(o, base)));
    }
    return n;
  }

  static ObjectNode error(int code, String reason, String message) {
    ObjectNode n = MAPPER.createObjectNode();
    ObjectNode e = n.putObject("error").put("code", code).put("message", message);
    e.putArray("errors").addObject().put("message", message).put("domain", "global").put("reason", reason);
    return n;
  }
}
