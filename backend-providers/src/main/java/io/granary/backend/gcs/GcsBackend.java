package io.granary.backend.gcs;

import com.google.cloud.ReadChannel;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.Storage.BlobListOption;
import com.google.cloud.storage.Storage.BlobSourceOption;
import com.google.cloud.storage.Storage.BlobWriteOption;
import io.granary.backend.Backend;
import io.granary.backend.BackendConfig;
import io.granary.backend.BackendException;
import io.granary.backend.BackendException.Kind;
import io.granary.backend.PutAttributes;
import io.granary.backend.RemoteObject;
import io.granary.backend.RemotePage;
import io.granary.backend.RemoteRead;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;

/**
 * {@link Backend} for Google Cloud Storage over the JSON API (HTTP transport). Thread-safe; every call blocks.
 * The library retries transient failures, including resuming a download that broke mid-body (it pins the
 * generation when it resumes), so a thrown {@link BackendException} is final.
 *
 * <p>Fills {@link RemoteObject}: key, size, etag, version (the generation, decimal), lastModified (update time),
 * md5 and crc32c (hex, when GCS has them; composite objects have no md5), contentType and userMeta.
 */
public final class GcsBackend implements Backend {
  private final Storage storage;

  GcsBackend(Storage storage) {
    this.storage = storage;
  }

  /** Opens a backend for {@code config} (provider GCP). */
  public static GcsBackend open(BackendConfig config) throws BackendException {
    return new GcsBackend(GcsStorageFactory.create(config));
  }

  @Override
  public RemoteObject head(String bucket, String key) throws BackendException {
    Blob blob;
    try {
      blob = storage.get(BlobId.of(bucket, key));
    } catch (RuntimeException e) {
      throw GcsErrors.map("HEAD", bucket, key, e);
    }
    if (blob == null) {
      throw new BackendException(Kind.NOT_FOUND, 404, "HEAD gs://" + bucket + "/" + key + ": not found");
    }
    return GcsObjects.of(blob);
  }

  /**
   * Without {@code expected} this costs one extra request (a head), which gives the size to check the body
   * against and the generation to pin: the read then fails with CHANGED rather than mixing two versions.
   */
  @Override
  public RemoteRead read(String bucket, String key, long offset, long length, RemoteObject expected)
      throws BackendException {
    if (offset < 0) {
      throw new IllegalArgumentException("offset " + offset);
    }
    String what = "GET gs://" + bucket + "/" + key;
    RemoteObject object = expected != null && GcsObjects.generationOf(expected) != null ? expected
        : head(bucket, key);
    // As S3 answers: a range starting at or past the end is 416, except reading all of an empty object.
    if (offset > object.size() || (offset == object.size() && length != 0 && offset > 0)
        || (offset == 0 && object.size() == 0 && length > 0)) {
      throw new BackendException(Kind.INVALID_RANGE, 416,
          what + ": offset " + offset + " outside size " + object.size());
    }
    long served = length < 0 ? object.size() - offset : Math.min(length, object.size() - offset);
    // A generation-match precondition, not a generation in the BlobId: reading a pinned old generation from a
    // non-versioned bucket answers 404, while the precondition answers 412, which is what CHANGED means.
    ReadChannel channel = storage.reader(BlobId.of(bucket, key),
        BlobSourceOption.generationMatch(GcsObjects.generationOf(object)),
        BlobSourceOption.shouldReturnRawInputStream(true));
    try {
      if (offset > 0) {
        channel.seek(offset);
      }
      channel.limit(offset + served);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw GcsErrors.map("GET", bucket, key, e);
    }
    return GcsRemoteRead.open(channel, object, offset, served, what);
  }

  @Override
  public RemotePage list(String bucket, String prefix, String delimiter, String startAfter, String token,
      int maxKeys) throws BackendException {
    List<BlobListOption> options = new ArrayList<>();
    options.add(BlobListOption.pageSize(maxKeys));
    if (prefix != null && !prefix.isEmpty()) {
      options.add(BlobListOption.prefix(prefix));
    }
    if (delimiter != null) {
      options.add(BlobListOption.delimiter(delimiter));
    }
    if (token != null) {
      options.add(BlobListOption.pageToken(token));
    } else if (startAfter != null) {
      // startOffset is inclusive; startAfter is not, so the key equal to it is dropped below.
      options.add(BlobListOption.startOffset(startAfter));
    }
    try {
      var page = storage.list(bucket, options.toArray(BlobListOption[]::new));
      List<RemoteObject> objects = new ArrayList<>();
      List<String> prefixes = new ArrayList<>();
      for (Blob b : page.getValues()) {
        if (b.isDirectory()) {
          prefixes.add(b.getName());
        } else if (token != null || startAfter == null || !startAfter.equals(b.getName())) {
          objects.add(GcsObjects.of(b));
        }
      }
      String next = page.getNextPageToken();
      return new RemotePage(objects, prefixes, next == null || next.isEmpty() ? null : next);
    } catch (RuntimeException e) {
      throw GcsErrors.map("LIST", bucket, prefix, e);
    }
  }

  @Override
  @SuppressWarnings("deprecation") // md5Match: still the way to have GCS check a caller-supplied md5
  public RemoteObject put(String bucket, String key, Path file, PutAttributes attributes) throws BackendException {
    BlobInfo.Builder info = BlobInfo.newBuilder(BlobId.of(bucket, key))
        .setContentType(attributes.contentType())
        .setMetadata(attributes.userMeta().isEmpty() ? null : attributes.userMeta());
    List<BlobWriteOption> options = new ArrayList<>();
    if (attributes.md5Hex() != null) {
      // GCS refuses to finalize an object whose bytes do not match the md5 we computed.
      info.setMd5(Base64.getEncoder().encodeToString(HexFormat.of().parseHex(attributes.md5Hex())));
      options.add(BlobWriteOption.md5Match());
    }
    if (!Files.isReadable(file)) {
      throw new BackendException(Kind.OTHER, 0, "PUT gs://" + bucket + "/" + key + ": cannot read " + file);
    }
    try {
      // createFrom(Path) uploads resumably in chunks from the file; only a chunk buffer is in memory.
      return GcsObjects.of(storage.createFrom(info.build(), file, options.toArray(BlobWriteOption[]::new)));
    } catch (IOException | RuntimeException e) {
      throw GcsErrors.map("PUT", bucket, key, e);
    }
  }

  @Override
  public void delete(String bucket, String key) throws BackendException {
    try {
      storage.delete(BlobId.of(bucket, key)); // false when absent: not an error
    } catch (RuntimeException e) {
      throw GcsErrors.map("DELETE", bucket, key, e);
    }
  }

  @Override
  public void close() {
    try {
      storage.close();
    } catch (Exception ignored) {
      // Nothing to report at shutdown.
    }
  }
}
