package io.granary.target.space;

import io.granary.target.storage.Mountpath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Measures mountpaths. With a configured limit, used = the store's running counters (objects and work files) plus
 * the multipart parts last counted by {@link #refresh} (parts are few and short-lived, so a periodic walk of the
 * uploads directory is cheaper than hooking every part operation). Without one, used = file system size minus
 * usable bytes. {@link #measure} does no I/O beyond a statvfs, so the event loop may call it.
 */
final class CapacityMeter {
  private final long limitBytes;
  private final Map<Mountpath, AtomicLong> uploadBytes = new ConcurrentHashMap<>();

  /** @param limitBytes per-mountpath capacity, or 0 to use each file system's size */
  CapacityMeter(long limitBytes, List<Mountpath> mountpaths) {
    this.limitBytes = limitBytes;
    for (Mountpath mp : mountpaths) {
      uploadBytes.put(mp, new AtomicLong());
    }
  }

  Capacity measure(Mountpath mp) throws IOException {
    if (limitBytes > 0) {
      AtomicLong uploads = uploadBytes.get(mp);
      long used = mp.usage().objectBytes() + mp.usage().workBytes() + (uploads == null ? 0 : uploads.get());
      return new Capacity(limitBytes, used, true);
    }
    long total = mp.totalSpace();
    return new Capacity(total, total - mp.usableSpace(), false);
  }

  /** Recounts the bytes of multipart parts on {@code mp}. Blocks on disk: background threads only. */
  void refresh(Mountpath mp) throws IOException {
    if (limitBytes > 0) {
      uploadBytes.computeIfAbsent(mp, m -> new AtomicLong()).set(sizeOfTree(mp.uploadsDir()));
    }
  }

  /** Forgets a mountpath that left. */
  void forget(Mountpath mp) {
    uploadBytes.remove(mp);
  }

  private static long sizeOfTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return 0;
    }
    long total = 0;
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : (Iterable<Path>) walk::iterator) {
        try {
          BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
          total += a.isRegularFile() ? a.size() : 0;
        } catch (IOException e) {
          // removed while walking (an upload completed or aborted): nothing to count
        }
      }
    } catch (UncheckedIOException e) {
      // a directory vanished mid-walk; the next refresh counts again
    }
    return total;
  }
}
