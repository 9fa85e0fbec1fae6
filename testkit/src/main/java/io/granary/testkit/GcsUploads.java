package io.granary.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Uploads to the fake GCS server: {@code POST /upload/storage/v1/b/{b}/o?uploadType=media|multipart|resumable},
 * and the {@code PUT}s of a resumable session ({@code Content-Range: bytes a-b/total|*}, answered 308 with
 * {@code Range: bytes=0-n} until the total is reached). md5Hash/crc32c in the metadata or an {@code x-goog-hash}
 * header are checked against the bytes received: 400 on mismatch.
 */
final class GcsUploads {
  private static final Pattern CONTENT_RANGE = Pattern.compile("bytes (?:(\\d+)-(\\d+)|\\*)/(\\d+|\\*)");

  /** An open resumable session; its bytes so far are staged in a file. */
  private static final class Session {
    final String bucket;
    final JsonNode metadata;
    final String contentType;
    final GcsStore.Preconditions preconditions;
    final Staging staging;
    GcsObject done;

    Session(String bucket, JsonNode metadata, String contentType, GcsStore.Preconditions pre, Staging staging) {
      this.bucket = bucket;
      this.metadata = metadata;
      this.contentType = contentType;
      this.preconditions = pre;
      this.staging = staging;
    }
  }

  private final GcsStore store;
  private final Map<String, Session> sessions = new ConcurrentHashMap<>();

  GcsUploads(GcsStore store) {
    this.store = store;
  }

  void post(GcsExchange ex, String bucket) throws IOException {
    store.bucket(bucket);
    String type = ex.param("uploadType");
    if ("media".equals(type)) {
      media(ex, bucket);
    } else if ("multipart".equals(type)) {
      multipart(ex, bucket);
    } else if ("resumable".equals(type)) {
      startResumable(ex, bucket);
    } else {
      throw GcsException.badRequest("Unsupported uploadType: " + type);
    }
  }

  private void media(GcsExchange ex, String bucket) throws IOException {
    Staging staging = new Staging(store.tmpDir);
    try (InputStream in = ex.body()) {
      staging.append(in);
    } catch (IOException e) {
      staging.discard();
      throw e;
    }
    String[] hash = xGoogHash(ex);
    GcsObject o = store.commit(bucket, ex.param("name"), staging, ex.header("Content-Type"), Map.of(),
        ex.preconditions(), hash[0], hash[1]);
    ex.json(200, GcsJson.object(o, ex.base));
  }

  private void multipart(GcsExchange ex, String bucket) throws IOException {
    String boundary = MultipartReader.boundary(ex.header("Content-Type"));
    if (boundary == null) {
      throw GcsException.badRequest("multipart upload without a boundary");
    }
    MultipartReader reader = new MultipartReader(ex.body(), boundary);
    reader.start();
    if (reader.nextPartHeaders() == null) {
      throw GcsException.badRequest("multipart upload without a metadata part");
    }
    JsonNode metadata = GcsJson.MAPPER.readTree(reader.readSmallPart(1 << 20));
    Map<String, String> mediaHeaders = reader.nextPartHeaders();
    if (mediaHeaders == null) {
      throw GcsException.badRequest("multipart upload without a media part");
    }
    Staging staging = new Staging(store.tmpDir);
    try {
      reader.copyUntilDelimiter(staging);
    } catch (IOException | RuntimeException e) {
      staging.discard();
      throw e;
    }
    String contentType = text(metadata, "contentType", mediaHeaders.get("content-type"));
    GcsObject o = commit(bucket, metadata, contentType, ex.param("name"), staging, ex.preconditions(), ex);
    ex.json(200, GcsJson.object(o, ex.base));
  }

  private void startResumable(GcsExchange ex, String bucket) throws IOException {
    JsonNode metadata;
    try (InputStream in = ex.body()) {
      byte[] body = in.readNBytes(1 << 20);
      metadata = body.length == 0 ? GcsJson.MAPPER.createObjectNode() : GcsJson.MAPPER.readTree(body);
    }
    String contentType = text(metadata, "contentType", ex.header("X-Upload-Content-Type"));
    if (text(metadata, "name", ex.param("name")) == null) {
      throw GcsException.badRequest("Required object name");
    }
    String id = UUID.randomUUID().toString();
    Session s = new Session(bucket, withName(metadata, ex.param("name")), contentType, ex.preconditions(),
        new Staging(store.tmpDir));
    sessions.put(id, s);
    ex.http.getResponseHeaders().set("Location", ex.base + "/upload/storage/v1/b/" + PercentCodec.encode(bucket)
        + "/o?uploadType=resumable&upload_id=" + id);
    ex.http.getResponseHeaders().set("X-GUploader-UploadID", id);
    ex.empty(200);
  }

  /** {@code PUT} to a session URI: a chunk, a finalization, or a status query. */
  void put(GcsExchange ex) throws IOException {
    String id = ex.param("upload_id");
    Session s = id == null ? null : sessions.get(id);
    if (s == null) {
      throw GcsException.notFound("upload session: " + id);
    }
    synchronized (s) {
      if (s.done != null) {
        ex.body().transferTo(OutputStream.nullOutputStream());
        ex.json(200, GcsJson.object(s.done, ex.base));
        return;
      }
      String range = ex.header("Content-Range");
      long first = s.staging.size();
      long total = -1;
      if (range != null) {
        Matcher m = CONTENT_RANGE.matcher(range.trim());
        if (!m.matches()) {
          throw GcsException.badRequest("Invalid Content-Range: " + range);
        }
        first = m.group(1) == null ? s.staging.size() : Long.parseLong(m.group(1));
        total = "*".equals(m.group(3)) ? -1 : Long.parseLong(m.group(3));
      }
      if (first > s.staging.size()) {
        throw GcsException.badRequest("Chunk starts at " + first + " but only " + s.staging.size()
            + " bytes were received");
      }
      try (InputStream in = ex.body()) {
        // A retried chunk may overlap bytes already persisted; they are skipped, as GCS does.
        in.skipNBytes(s.staging.size() - first);
        s.staging.append(in);
      } catch (EOFException shortRetry) {
        // The whole chunk was already persisted.
      }
      if (range == null) {
        total = s.staging.size(); // A single PUT with the whole object.
      }
      if (total >= 0 && s.staging.size() > total) {
        throw GcsException.badRequest("Received " + s.staging.size() + " bytes, more than the total " + total);
      }
      if (total >= 0 && s.staging.size() == total) {
        sessions.remove(id);
        s.done = commit(s.bucket, s.metadata, s.contentType, null, s.staging, s.preconditions, ex);
        ex.json(200, GcsJson.object(s.done, ex.base));
        return;
      }
      if (s.staging.size() > 0) {
        ex.http.getResponseHeaders().set("Range", "bytes=0-" + (s.staging.size() - 1));
      }
      ex.empty(308);
    }
  }

  /** {@code DELETE} of a session URI cancels it (GCS answers 499). */
  void cancel(GcsExchange ex) throws IOException {
    Session s = sessions.remove(String.valueOf(ex.param("upload_id")));
    if (s == null) {
      throw GcsException.notFound("upload session");
    }
    s.staging.discard();
    ex.empty(499);
  }

  private GcsObject commit(String bucket, JsonNode metadata, String contentType, String nameParam, Staging staging,
      GcsStore.Preconditions pre, GcsExchange ex) throws IOException {
    Map<String, String> user = new LinkedHashMap<>();
    JsonNode m = metadata.get("metadata");
    if (m != null && m.isObject()) {
      m.properties().forEach(e -> user.put(e.getKey(), e.getValue().asText()));
    }
    String[] hash = xGoogHash(ex);
    String md5 = text(metadata, "md5Hash", hash[0]);
    String crc = text(metadata, "crc32c", hash[1]);
    return store.commit(bucket, text(metadata, "name", nameParam), staging, contentType, user, pre, md5, crc);
  }

  /** {@code x-goog-hash: crc32c=...,md5=...}: [md5, crc32c], either null. */
  private static String[] xGoogHash(GcsExchange ex) {
    String[] out = new String[2];
    for (String value : ex.http.getRequestHeaders().getOrDefault("x-goog-hash", List.of())) {
      for (String part : value.split(",")) {
        String p = part.trim();
        if (p.startsWith("md5=")) {
          out[0] = p.substring(4);
        } else if (p.startsWith("crc32c=")) {
          out[1] = p.substring(7);
        }
      }
    }
    return out;
  }

  private static JsonNode withName(JsonNode metadata, String name) {
    if (name != null && !metadata.hasNonNull("name") && metadata.isObject()) {
      ((com.fasterxml.jackson.databind.node.ObjectNode) metadata).put("name", name);
    }
    return metadata;
  }

  private static String text(JsonNode n, String field, String fallback) {
    JsonNode v = n.get(field);
    return v != null && !v.isNull() ? v.asText() : fallback;
  }

  void close() {
    sessions.values().forEach(s -> s.staging.discard());
    sessions.clear();
  }
}
