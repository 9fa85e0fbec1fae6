package io.granary.target.ec;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.common.error.BadRequestException;
import io.granary.common.error.ConflictException;
import io.granary.target.checksum.ContentHasher;
import io.granary.target.storage.BodySink;
import io.granary.target.storage.FileOps;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.ObjectStore;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The slices and replicas this target holds for objects other targets own, and the owner's "encoded" marks: files
 * under {@code MOUNTPATH/ec/PROVIDER/BUCKET/BUCKET_ID/HH/HASH/} (HASH the SHA-256 of the object name), apart from
 * objects and their metadata store, so that listings, rebalance, resilver and plain GETs never see them.
 *
 * <ul>
 *   <li>{@code VERSION.INDEX.slice}: the slice's bytes ({@code INDEX} = {@code r} for a replica);</li>
 *   <li>{@code VERSION.INDEX.json}: its {@link SliceRecord}, written last: a slice without its record does not
 *       exist (a crash between the two leaves a file the next receipt of that slice replaces);</li>
 *   <li>{@code VERSION.encoded}: on the owner, that this version was sent to its holders: the map version, then on a
 *       second line the holders' ids in slice order, which a placement change compares with where they should be
 *       now;</li>
 *   <li>{@code MS.deleted}: on the owner, that the object was deleted at MS (epoch ms): what lets a holder that was
 *       away drop the slices the delete could not reach ({@link OrphanSweep}), and nothing else.</li>
 * </ul>
 *
 * <p>A receipt verifies size and checksum before anything is renamed; both files are fsynced, then the directory.
 * The newest version wins: an older version is refused (409) once a newer one is held; older versions held stay
 * until the owner has sent every slice of the new one and asks for their removal. Disk threads only.
 */
public final class SliceStore {
  private static final Logger log = LoggerFactory.getLogger(SliceStore.class);
  static final String DIR = "ec";
  private static final String SLICE = ".slice";
  private static final String RECORD = ".json";
  private static final String ENCODED = ".encoded";
  private static final String DELETED = ".deleted";

  private final String nodeId;
  private final ObjectStore store;
  private final AtomicLong held = new AtomicLong(); // slice records on this target
  private final Object[] locks = new Object[64];   // per object directory, striped

  public SliceStore(String nodeId, ObjectStore store) {
    this.nodeId = nodeId;
    this.store = store;
    for (int i = 0; i < locks.length; i++) {
      locks[i] = new Object();
    }
  }

  /** A slice held here: its record and its file. */
  public record Held(SliceRecord record, Path file) {
  }

  /** Slices and replicas held here now. */
  public long held() {
    return held.get();
  }

  /** Counts the slice records on disk (at start: the counter is kept from there). */
  public void count() {
    long n = 0;
    for (Mountpath mp : store.mountpathSet().readable()) {
      Path root = mp.root().resolve(DIR);
      if (!Files.isDirectory(root)) {
        continue;
      }
      try (Stream<Path> walk = Files.walk(root)) {
        n += walk.filter(p -> p.getFileName().toString().endsWith(RECORD)).count();
      } catch (IOException | java.io.UncheckedIOException e) {
        log.warn("node={} mountpath={} counting slices failed: {}", nodeId, mp, e.toString());
      }
    }
    held.set(n);
  }

  private static Path bucketDir(Mountpath mp, BucketProps b) {
    return mp.root().resolve(DIR).resolve(b.bucket().provider().wireName()).resolve(b.bucket().name())
        .resolve(b.id());
  }

  static Path objectDir(Mountpath mp, BucketProps b, String name) {
    String hex = nameHash(name);
    return bucketDir(mp, b).resolve(hex.substring(0, 2)).resolve(hex);
  }

  /** The object directory's name: the SHA-256 of the object name, in hex. */
  private static String nameHash(String name) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
          .digest(name.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private Object lock(BucketProps b, String name) {
    return lock(b.id(), nameHash(name));
  }

  /** By bucket incarnation and object directory, so that a walk of the directories takes the same locks. */
  private Object lock(String bucketId, String nameHash) {
    return locks[Math.floorMod(bucketId.hashCode() * 31 + nameHash.hashCode(), locks.length)];
  }

  /** Where new files of the object go: its HRW mountpath here, as for an object. */
  private Mountpath home(BucketProps b, String name) {
    return store.mountpathSet().pick(PlacementKey.digest(b.bucket(), name));
  }

  /** Starts receiving a slice: a work file on the object's mountpath here. */
  public SliceWrite begin(BucketProps b, String name, SliceRecord r) throws IOException {
    if (!r.bucketId().equals(b.id()) || !r.object().equals(name)
        || !r.bucket().equals(b.bucket().name())) {
      throw BadRequestException.invalidArgument("the slice record names " + r.bucket() + "/" + r.object() + " of "
          + r.bucketId() + ", not " + b.bucket() + "/" + name + " of " + b.id());
    }
    Mountpath mp = home(b, name);
    Path work = mp.workDir().resolve("ec-" + Long.toHexString(System.nanoTime()) + "-"
        + Integer.toHexString(System.identityHashCode(r)));
    FileChannel ch = FileChannel.open(work, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    return new SliceWrite(b, name, r, mp, work, ch);
  }

  /** A slice arriving: written to its work file, checked and committed by {@link #commit}. */
  public final class SliceWrite implements BodySink {
    private final BucketProps bucket;
    private final String name;
    private final SliceRecord record;
    private final Mountpath mountpath;
    private final Path work;
    private final FileChannel channel;
    private final ContentHasher hasher = ContentHasher.of(ChecksumType.XXHASH64);
    private long written;

    private SliceWrite(BucketProps bucket, String name, SliceRecord record, Mountpath mountpath, Path work,
        FileChannel channel) {
      this.bucket = bucket;
      this.name = name;
      this.record = record;
      this.mountpath = mountpath;
      this.work = work;
      this.channel = channel;
    }

    @Override
    public void write(ByteBuf buf) throws IOException {
      for (ByteBuffer b : buf.nioBuffers()) {
        hasher.update(b);
        written += b.remaining();
        while (b.hasRemaining()) {
          channel.write(b);
        }
      }
    }

    /** Verifies the bytes against the record, then commits slice and record durably; 400 on a mismatch. */
    public void commit() throws IOException {
      try {
        if (written != record.sliceSize()) {
          throw BadRequestException.invalidArgument("slice " + record.stem() + " of " + name + " has " + written
              + " bytes, its record says " + record.sliceSize());
        }
        String sum = hasher.hex();
        if (!sum.equals(record.sliceChecksum())) {
          throw new BadRequestException("BadChecksum", "slice " + record.stem() + " of " + name + " hashes to "
              + sum + ", its record says " + record.sliceChecksum());
        }
        channel.force(true);
        channel.close();
        Path dir = objectDir(mountpath, bucket, name);
        synchronized (lock(bucket, name)) {
          List<Held> before = heldAll(bucket, name);
          for (Held h : before) {
            if (h.record().mtime() > record.mtime()) {
              throw new ConflictException("StaleVersion", "a newer version of " + name + " is held here ("
                  + h.record().version() + ")");
            }
          }
          FileOps.createDirectories(dir);
          FileOps.moveReplacing(work, dir.resolve(record.stem() + SLICE));
          boolean existed = Files.exists(dir.resolve(record.stem() + RECORD));
          writeDurably(dir, record.stem() + RECORD, record.encode());
          FileOps.syncDirectory(dir);
          if (!existed) {
            held.incrementAndGet();
          }
          // The same slice on another mountpath (placement here changed since it came, or it was sent again
          // because that copy was found short) goes: each slice is held once.
          for (Held h : before) {
            if (h.record().stem().equals(record.stem()) && !h.file().getParent().equals(dir)) {
              removeFiles(h.file().getParent(), h.record().stem());
            }
          }
          // Older versions stay until the owner, done sending this one, asks for their removal: an owner lost in
          // the middle leaves the previous version whole rather than two halves.
        }
      } finally {
        discard();
      }
    }

    @Override
    public void discard() {
      try {
        channel.close();
        Files.deleteIfExists(work);
      } catch (IOException e) {
        log.warn("node={} could not remove slice work file {}: {}", nodeId, work, e.toString());
      }
    }
  }

  /** Writes {@code name} in {@code dir} through a fsynced temporary file and a rename (the caller syncs dir). */
  private static void writeDurably(Path dir, String name, byte[] content) throws IOException {
    Path tmp = dir.resolve(name + ".tmp");
    try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer b = ByteBuffer.wrap(content);
      while (b.hasRemaining()) {
        ch.write(b);
      }
      ch.force(true);
    }
    FileOps.moveReplacing(tmp, dir.resolve(name));
  }

  /** The slices and replicas of the object held here, every version, on every readable mountpath. */
  public List<Held> held(BucketProps b, String name) throws IOException {
    synchronized (lock(b, name)) {
      return heldAll(b, name);
    }
  }

  private List<Held> heldAll(BucketProps b, String name) throws IOException {
    List<Held> out = new ArrayList<>();
    for (Mountpath mp : store.mountpathSet().readable()) {
      Path dir = objectDir(mp, b, name);
      try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + RECORD)) {
        for (Path f : files) {
          String stem = f.getFileName().toString();
          stem = stem.substring(0, stem.length() - RECORD.length());
          try {
            out.add(new Held(SliceRecord.decode(Files.readAllBytes(f)), dir.resolve(stem + SLICE)));
          } catch (IOException e) {
            log.warn("node={} bucket={} object={}: unreadable slice record {}: {}", nodeId, b.bucket(), name, f,
                e.toString());
          }
        }
      } catch (NoSuchFileException e) {
        // nothing held on this mountpath
      }
    }
    return out;
  }

  /** The slice {@code index} ({@link SliceRecord#REPLICA}) of {@code version} held here, or null. */
  public Held find(BucketProps b, String name, String version, int index) throws IOException {
    for (Held h : held(b, name)) {
      if (h.record().version().equals(version) && h.record().index() == index) {
        return h;
      }
    }
    return null;
  }

  /**
   * Whether slice {@code index} of {@code version} is held here whole: its record, and its file of the size the
   * record gives (a file lost with a disk, or removed by hand, is not held). What an owner's audit asks.
   */
  public boolean holds(BucketProps b, String name, String version, int index) throws IOException {
    Held h = find(b, name, version, index);
    if (h == null) {
      return false;
    }
    try {
      return Files.size(h.file()) == h.record().sliceSize();
    } catch (NoSuchFileException e) {
      return false;
    }
  }

  /**
   * The names of the objects of bucket {@code b} this target holds slices or marks of (read from their records; an
   * object with marks only, on its owner, is not listed).
   */
  public List<String> objectsHeld(BucketProps b) {
    java.util.Set<String> names = new java.util.LinkedHashSet<>();
    for (Mountpath mp : store.mountpathSet().readable()) {
      Path root = bucketDir(mp, b);
      if (!Files.isDirectory(root)) {
        continue;
      }
      try (Stream<Path> dirs = Files.walk(root, 2)) {
        for (Path dir : (Iterable<Path>) dirs.filter(d -> root.relativize(d).getNameCount() == 2)::iterator) {
          try (DirectoryStream<Path> records = Files.newDirectoryStream(dir, "*" + RECORD)) {
            for (Path f : records) {
              names.add(SliceRecord.decode(Files.readAllBytes(f)).object());
              break;
            }
          } catch (IOException e) {
            log.warn("node={} bucket={}: unreadable slice directory {}: {}", nodeId, b.bucket(), dir, e.toString());
          }
        }
      } catch (IOException | java.io.UncheckedIOException e) {
        log.warn("node={} mountpath={} bucket={}: listing slices failed: {}", nodeId, mp, b.bucket(), e.toString());
      }
    }
    return List.copyOf(names);
  }

  /**
   * Re-hashes each slice of the object held here against its record and removes those whose file is missing, of
   * another size or hashes differently (the record first: no record, no slice); the records of those removed.
   * Under the object's lock: a slice arriving meanwhile waits, and is never mistaken for a corrupt one.
   */
  public List<SliceRecord> removeCorrupt(BucketProps b, String name) throws IOException {
    List<SliceRecord> removed = new ArrayList<>();
    synchronized (lock(b, name)) {
      for (Held h : heldAll(b, name)) {
        SliceRecord r = h.record();
        boolean whole;
        try (FileChannel ch = FileChannel.open(h.file(), StandardOpenOption.READ)) {
          whole = ch.size() == r.sliceSize()
              && io.granary.target.checksum.FileHashing.hash(ch, r.sliceSize(), ChecksumType.XXHASH64)
                  .equals(r.sliceChecksum());
        } catch (NoSuchFileException e) {
          whole = false;
        }
        if (!whole) {
          removeFiles(h.file().getParent(), r.stem());
          removed.add(r);
        }
      }
    }
    return removed;
  }

  /** Removes the slices of the object held here that {@code which} picks, and their owner marks; how many. */
  public int remove(BucketProps b, String name, Predicate<SliceRecord> which) throws IOException {
    synchronized (lock(b, name)) {
      return removeHeld(b, name, which);
    }
  }

  private int removeHeld(BucketProps b, String name, Predicate<SliceRecord> which) throws IOException {
    int n = 0;
    for (Held h : heldAll(b, name)) {
      if (which.test(h.record())) {
        removeFiles(h.file().getParent(), h.record().stem());
        n++;
      }
    }
    return n;
  }

  /** Removes one slice held in {@code dir}: the record first (no record, no slice), then its bytes. */
  private void removeFiles(Path dir, String stem) throws IOException {
    Files.deleteIfExists(dir.resolve(stem + RECORD));
    Files.deleteIfExists(dir.resolve(stem + SLICE));
    FileOps.syncDirectory(dir);
    held.decrementAndGet();
  }

  /**
   * A mountpath back in service (enabled or attached again) may hold what was replaced while it was away: slices the
   * owners sent again to another mountpath here (the audit found them missing), and owner marks written anew
   * elsewhere. Those are removed from it (a slice whose version and index another mountpath holds; an encoded mark
   * of an object another mountpath has marks of), so each slice is held once and no stale mark names the holders of
   * the past; what only it holds stays. The count of held slices is redone. How many files went.
   */
  public int dropReplaced(Mountpath returning) {
    Path root = returning.root().resolve(DIR);
    List<Mountpath> others = store.mountpathSet().readable().stream()
        .filter(mp -> !mp.root().equals(returning.root())).toList();
    if (!Files.isDirectory(root) || others.isEmpty()) {
      return 0;
    }
    int dropped = 0;
    // ec/PROVIDER/BUCKET/BUCKET_ID/HH/HASH: object directories are five levels down
    try (Stream<Path> walk = Files.walk(root, 5)) {
      for (Path dir : (Iterable<Path>) walk.filter(d -> root.relativize(d).getNameCount() == 5)::iterator) {
        Path rel = root.relativize(dir);
        synchronized (lock(rel.getName(2).toString(), rel.getName(4).toString())) {
          dropped += dropReplaced(dir, others.stream().map(mp -> mp.root().resolve(DIR).resolve(rel)).toList());
        }
      }
    } catch (IOException | java.io.UncheckedIOException e) {
      log.warn("node={} mountpath={}: looking for slices replaced while it was away failed: {}", nodeId,
          returning, e.toString());
    }
    count();
    if (dropped > 0) {
      log.info("node={} mountpath={} back: {} slice and mark files replaced while it was away removed", nodeId,
          returning, dropped);
    }
    return dropped;
  }

  private static int dropReplaced(Path dir, List<Path> elsewhere) throws IOException {
    boolean marksElsewhere = false;
    for (Path d : elsewhere) {
      try (DirectoryStream<Path> marks = Files.newDirectoryStream(d, "*" + ENCODED)) {
        marksElsewhere |= marks.iterator().hasNext();
      } catch (NoSuchFileException e) {
        // nothing of the object there
      }
    }
    int n = 0;
    List<Path> files;
    try (Stream<Path> list = Files.list(dir)) {
      files = list.toList();
    }
    for (Path f : files) {
      String file = f.getFileName().toString();
      boolean replaced = file.endsWith(RECORD)
          ? elsewhere.stream().anyMatch(d -> Files.exists(d.resolve(file)))
          : file.endsWith(ENCODED) && marksElsewhere;
      if (replaced) {
        Files.deleteIfExists(f); // a record first: no record, no slice
        n++;
        String stem = file.substring(0, file.length() - (file.endsWith(RECORD) ? RECORD : ENCODED).length());
        if (file.endsWith(RECORD) && Files.deleteIfExists(dir.resolve(stem + SLICE))) {
          n++;
        }
      }
    }
    if (n > 0) {
      FileOps.syncDirectory(dir);
    }
    return n;
  }

  /**
   * Records on the owner that {@code version} of the object was encoded under map {@code mapVersion} and sent to
   * {@code holders} (their ids, in slice order).
   */
  public void markEncoded(BucketProps b, String name, String version, long mapVersion, List<String> holders)
      throws IOException {
    Path dir = objectDir(home(b, name), b, name);
    synchronized (lock(b, name)) {
      clearMarks(b, name);
      FileOps.createDirectories(dir);
      writeDurably(dir, version + ENCODED, (mapVersion + "\n" + String.join(",", holders))
          .getBytes(StandardCharsets.US_ASCII));
      FileOps.syncDirectory(dir);
    }
  }

  /** Whether {@code version} of the object is marked encoded here. */
  public boolean isEncoded(BucketProps b, String name, String version) {
    for (Mountpath mp : store.mountpathSet().readable()) {
      if (Files.exists(objectDir(mp, b, name).resolve(version + ENCODED))) {
        return true;
      }
    }
    return false;
  }

  /**
   * The holders {@code version} of the object was sent to, in slice order, when it is marked encoded here; null
   * when it is not; empty for a mark that names none (unreadable: encoded again to be sure).
   */
  public List<String> encodedFor(BucketProps b, String name, String version) {
    for (Mountpath mp : store.mountpathSet().readable()) {
      Path f = objectDir(mp, b, name).resolve(version + ENCODED);
      try {
        String[] lines = Files.readString(f, StandardCharsets.US_ASCII).split("\n", 2);
        return lines.length < 2 || lines[1].isBlank() ? List.of() : List.of(lines[1].trim().split(","));
      } catch (NoSuchFileException e) {
        // not on this mountpath
      } catch (IOException e) {
        return List.of();
      }
    }
    return null;
  }

  /** Removes the object's encoded marks here (it must be encoded again). */
  public void clearMarks(BucketProps b, String name) throws IOException {
    clearMarks(b, name, Long.MAX_VALUE);
  }

  /** Removes the marks of the object's versions not newer than {@code before} (epoch ms): it was deleted then. */
  public void clearMarks(BucketProps b, String name, long before) throws IOException {
    synchronized (lock(b, name)) {
      for (Mountpath mp : store.mountpathSet().readable()) {
        Path dir = objectDir(mp, b, name);
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + ENCODED)) {
          for (Path f : files) {
            String mtime = f.getFileName().toString().split("-", 2)[0];
            if (!mtime.matches("[0-9]{1,19}") || Long.parseLong(mtime) <= before) {
              Files.deleteIfExists(f);
            }
          }
        } catch (NoSuchFileException e) {
          // none here
        }
      }
    }
  }

  /** Records on the owner that the object was deleted at {@code ms}, durably. */
  public void markDeleted(BucketProps b, String name, long ms) throws IOException {
    Path dir = objectDir(home(b, name), b, name);
    synchronized (lock(b, name)) {
      FileOps.createDirectories(dir);
      writeDurably(dir, ms + DELETED, new byte[0]);
      FileOps.syncDirectory(dir);
    }
  }

  /** When the object was last deleted here (its owner), epoch ms; -1 when no delete is recorded. */
  public long deletedAt(BucketProps b, String name) throws IOException {
    long at = -1;
    synchronized (lock(b, name)) {
      for (Mountpath mp : store.mountpathSet().readable()) {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(objectDir(mp, b, name), "*" + DELETED)) {
          for (Path f : files) {
            String ms = f.getFileName().toString();
            ms = ms.substring(0, ms.length() - DELETED.length());
            if (ms.matches("[0-9]{1,19}")) {
              at = Math.max(at, Long.parseLong(ms));
            }
          }
        } catch (NoSuchFileException e) {
          // none here
        }
      }
    }
    return at;
  }

  /** A bucket incarnation is gone: everything held for it goes. */
  public void destroyBucket(BucketProps b) throws IOException {
    for (Mountpath mp : store.mountpathSet().readable()) {
      FileOps.deleteTree(bucketDir(mp, b));
    }
    count();
  }
}
