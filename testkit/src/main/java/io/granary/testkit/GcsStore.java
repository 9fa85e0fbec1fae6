package io.granary.testkit;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The fake GCS server's state: buckets, and per bucket the current generation of each object, sorted as GCS lists
 * them (UTF-8 byte order, which is code point order). Bytes live in files named by generation under
 * {@code dataDir/objects}; metadata only in memory. Writes are staged, then swapped in under the bucket's lock.
 */
final class GcsStore {
  /** UTF-8 byte order equals code point order; String.compareTo (UTF-16 units) differs above U+E000. */
  static final Comparator<String> UTF8_ORDER = (a, b) -> {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  };

  record Bucket(String name, Instant created, ConcurrentSkipListMap<String, GcsObject> objects) {
  }

  /** Conditions from {@code ifGenerationMatch} and friends; null fields are absent. */
  record Preconditions(Long ifGenerationMatch, Long ifGenerationNotMatch, Long ifMetagenerationMatch,
      Long ifMetagenerationNotMatch) {
    static final Preconditions NONE = new Preconditions(null, null, null, null);

    /** Throws 412 (or 304 for a read whose "not match" fails) when {@code current} does not satisfy them. */
    void check(GcsObject current, boolean read) {
      long gen = current == null ? 0 : current.generation();
      if (ifGenerationMatch != null && ifGenerationMatch != gen) {
        throw GcsException.preconditionFailed("ifGenerationMatch " + ifGenerationMatch + " but generation is " + gen);
      }
      if (current == null && (ifMetagenerationMatch != null)) {
        throw GcsException.preconditionFailed("ifMetagenerationMatch on a missing object");
      }
      long meta = current == null ? 0 : current.metageneration();
      if (ifMetagenerationMatch != null && ifMetagenerationMatch != meta) {
        throw GcsException.preconditionFailed("ifMetagenerationMatch " + ifMetagenerationMatch + " but is " + meta);
      }
      boolean notMatchFails = (ifGenerationNotMatch != null && ifGenerationNotMatch == gen)
          || (ifMetagenerationNotMatch != null && current != null && ifMetagenerationNotMatch == meta);
      if (notMatchFails) {
        throw read ? new GcsException(304, "notModified", "Not modified")
            : GcsException.preconditionFailed("ifGenerationNotMatch/ifMetagenerationNotMatch failed");
      }
    }
  }

  record Listing(List<GcsObject> items, List<String> prefixes, String nextPageToken) {
  }

  private final Path objectsDir;
  final Path tmpDir;
  private final Map<String, Bucket> buckets = new ConcurrentHashMap<>();
  // GCS generations are microsecond timestamps; a counter from "now" keeps them unique and increasing.
  private final AtomicLong generations = new AtomicLong(System.currentTimeMillis() * 1000);

  GcsStore(Path dataDir) throws IOException {
    this.objectsDir = Files.createDirectories(dataDir.resolve("objects"));
    this.tmpDir = Files.createDirectories(dataDir.resolve("tmp"));
  }

  Bucket createBucket(String name) {
    return buckets.computeIfAbsent(name, n -> new Bucket(n, Instant.now(), new ConcurrentSkipListMap<>(UTF8_ORDER)));
  }

  Bucket bucket(String name) {
    Bucket b = buckets.get(name);
    if (b == null) {
      throw GcsException.notFound("bucket: " + name);
    }
    return b;
  }

  /** The current generation, or 404 (also when {@code generation} names another one: no versioning here). */
  GcsObject get(String bucket, String name, Long generation) {
    GcsObject o = bucket(bucket).objects.get(name);
    if (o == null || (generation != null && generation != o.generation())) {
      throw GcsException.notFound("object: " + bucket + "/" + name
          + (generation == null ? "" : " generation " + generation));
    }
    return o;
  }

  GcsObject find(String bucket, String name) {
    return bucket(bucket).objects.get(name);
  }

  /**
   * Makes {@code staged} the new generation of {@code bucket/name}. {@code expectedMd5}/{@code expectedCrc32c}
   * (base64, may be null) are what the client claimed; a mismatch is a 400 and nothing is stored.
   */
  GcsObject commit(String bucket, String name, Staging staged, String contentType, Map<String, String> metadata,
      Preconditions pre, String expectedMd5, String expectedCrc32c) throws IOException {
    Bucket b = bucket(bucket);
    if (name == null || name.isEmpty()) {
      staged.discard();
      throw GcsException.badRequest("Required object name");
    }
    long size = staged.size();
    String[] sums = staged.finish();
    if (expectedMd5 != null && !expectedMd5.equals(sums[0])) {
      staged.discard();
      throw GcsException.badRequest("Provided MD5 hash \"" + expectedMd5 + "\" doesn't match calculated MD5 hash \""
          + sums[0] + "\".");
    }
    if (expectedCrc32c != null && !expectedCrc32c.equals(sums[1])) {
      staged.discard();
      throw GcsException.badRequest("Provided CRC32C \"" + expectedCrc32c + "\" doesn't match calculated CRC32C \""
          + sums[1] + "\".");
    }
    synchronized (b) {
      GcsObject previous = b.objects.get(name);
      try {
        pre.check(previous, false);
      } catch (GcsException e) {
        staged.discard();
        throw e;
      }
      long generation = generations.incrementAndGet();
      Path file = objectsDir.resolve(Long.toString(generation));
      Files.move(staged.file, file, StandardCopyOption.ATOMIC_MOVE);
      Instant now = Instant.now();
      GcsObject o = new GcsObject(bucket, name, generation, 1, size, sums[0], sums[1],
          contentType == null ? "application/octet-stream" : contentType, Map.copyOf(metadata), now, now, file);
      b.objects.put(name, o);
      if (previous != null) {
        // Readers with the old file open keep reading it (POSIX); it just loses its name.
        Files.deleteIfExists(previous.file());
      }
      return o;
    }
  }

  GcsObject updateMetadata(String bucket, String name, String contentType, Map<String, String> metadata,
      Preconditions pre) {
    Bucket b = bucket(bucket);
    synchronized (b) {
      GcsObject o = get(bucket, name, null);
      pre.check(o, false);
      GcsObject updated = o.withMetadata(contentType == null ? o.contentType() : contentType, Map.copyOf(metadata),
          Instant.now());
      b.objects.put(name, updated);
      return updated;
    }
  }

  void delete(String bucket, String name, Long generation, Preconditions pre) throws IOException {
    Bucket b = bucket(bucket);
    synchronized (b) {
      GcsObject o = get(bucket, name, generation);
      pre.check(o, false);
      b.objects.remove(name);
      Files.deleteIfExists(o.file());
    }
  }

  /** Flips one byte in the middle of the stored file; metadata (md5, crc32c) is left as it was. */
  void corrupt(String bucket, String name) throws IOException {
    GcsObject o = get(bucket, name, null);
    if (o.size() == 0) {
      throw new IllegalStateException("cannot corrupt an empty object: " + bucket + "/" + name);
    }
    try (RandomAccessFile f = new RandomAccessFile(o.file().toFile(), "rw")) {
      long at = o.size() / 2;
      f.seek(at);
      int v = f.read();
      f.seek(at);
      f.write(~v & 0xff);
    }
  }

  /**
   * One page of a listing. With a delimiter, names with it after the prefix roll up into {@code prefixes}; both
   * items and prefixes count toward {@code maxResults}, as in GCS. The page token is the last name or prefix
   * returned, marked so the next page starts after it (after all of a prefix's names).
   */
  Listing list(String bucket, String prefix, String delimiter, String startOffset, String endOffset,
      String pageToken, int maxResults, boolean includeTrailingDelimiter) {
    NavigableMap<String, GcsObject> objects = bucket(bucket).objects;
    String p = prefix == null ? "" : prefix;
    String from = p;
    if (startOffset != null && UTF8_ORDER.compare(startOffset, from) > 0) {
      from = startOffset;
    }
    String afterName = null;
    String afterPrefix = null;
    if (pageToken != null && !pageToken.isEmpty()) {
      String token = new String(Base64.getUrlDecoder().decode(pageToken),
          StandardCharsets.UTF_8);
      if (token.startsWith("p:")) {
        afterPrefix = token.substring(2);
      } else {
        afterName = token.substring(2);
      }
      String resume = token.substring(2);
      if (UTF8_ORDER.compare(resume, from) > 0) {
        from = resume;
      }
    }
    List<GcsObject> items = new ArrayList<>();
    TreeSet<String> prefixes = new TreeSet<>(UTF8_ORDER);
    String last = null;
    for (GcsObject o : objects.tailMap(from, true).values()) {
      String name = o.name();
      if (!name.startsWith(p)) {
        break; // Names with the prefix are contiguous in this order.
      }
      if (endOffset != null && UTF8_ORDER.compare(name, endOffset) >= 0) {
        break;
      }
      if (name.equals(afterName) || (afterPrefix != null && name.startsWith(afterPrefix))) {
        continue;
      }
      String rolledUp = null;
      if (delimiter != null && !delimiter.isEmpty()) {
        int d = name.indexOf(delimiter, p.length());
        if (d >= 0) {
          rolledUp = name.substring(0, d + delimiter.length());
        }
      }
      if (rolledUp != null && prefixes.contains(rolledUp)) {
        continue;
      }
      if (items.size() + prefixes.size() >= maxResults) {
        return new Listing(items, List.copyOf(prefixes), last);
      }
      if (rolledUp != null) {
        prefixes.add(rolledUp);
        last = token("p:", rolledUp);
        if (includeTrailingDelimiter && name.equals(rolledUp)) {
          items.add(o);
        }
      } else {
        items.add(o);
        last = token("n:", name);
      }
    }
    return new Listing(items, List.copyOf(prefixes), null);
  }

  private static String token(String kind, String key) {
    return Base64.getUrlEncoder().withoutPadding()
        .encodeToString((kind + key).getBytes(StandardCharsets.UTF_8));
  }
}
