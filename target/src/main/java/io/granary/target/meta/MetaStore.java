package io.granary.target.meta;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.clustermap.ClusterJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiPredicate;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Object metadata of one mountpath in RocksDB. Column family {@code objects} maps
 * {@code provider/bucket/bucketId/objectName} to {@link ObjectMeta} (in {@link ObjectMetaCodec}'s form);
 * {@code pending} maps a work-file name to its {@link CommitIntent} (JSON; intents are rare); {@code atime} maps
 * an object key to its last access time. Keys are UTF-8,
 * so a prefix scan returns names in the byte order S3 listings use.
 *
 * <p>Memory: bounded per store by {@link MetaMemory} (block cache, memtables, index and filter blocks).
 *
 * <p>Thread-safe. Calls block on disk and run off the event loop, except {@link #get}, which reads the memtable
 * and block cache and is cheap enough for the GET path.
 *
 * <p>Closing is safe while other threads still hold this store (a mountpath detached or disabled at run time, whose
 * store a listing or a rebalance walk took a moment before): every call counts itself in while it runs, {@link
 * #close} waits for the calls in progress, and calls after it fail with an {@link IOException} instead of reaching a
 * closed RocksDB handle, which would crash the JVM in native code.
 */
public final class MetaStore implements AutoCloseable {
  static {
    RocksNativeLibrary.load();
  }

  private static final Logger log = LoggerFactory.getLogger(MetaStore.class);
  private static final ObjectMapper JSON = ClusterJson.mapper();
  private static final byte[] OBJECTS_CF = "objects".getBytes(StandardCharsets.UTF_8);
  private static final byte[] PENDING_CF = "pending".getBytes(StandardCharsets.UTF_8);
  /**
   * Extra column families other features keep beside object metadata: multipart uploads and their parts;
   * {@code tombstones} (object key to the epoch ms it was deleted while a rebalance ran, so a copy moved in after
   * cannot bring it back); {@code handoff} (keys of objects committed here that another target owns, to be sent on);
   * {@code rebalance} (where a rebalance walk of this mountpath is, to resume it after a restart); {@code resilver}
   * (the same for a resilver walk); {@code completed} (multipart uploads completed within the retry window, so a
   * retried completion gets the same answer); {@code away} (objects deleted while a mountpath was disabled, so its
   * stale copies do not come back with it).
   */
  private static final List<String> COLUMNS = List.of("uploads", "parts", "tombstones", "handoff", "rebalance",
      "resilver", "completed", "away");
  /**
   * Access times: object key to epoch millis (8 bytes, big-endian). Kept apart from {@code objects} so a read never
   * rewrites the object's record; written in unsynced batches (losing recent atimes in a crash only makes eviction
   * fall back to older times).
   */
  private static final byte[] ATIME_CF = "atime".getBytes(StandardCharsets.UTF_8);

  private final Path dir;
  private final MetaMemory memory;
  private final DBOptions dbOptions;
  private final ColumnFamilyOptions cfOptions;
  private final RocksDB db;
  private final ColumnFamilyHandle defaultCf;
  private final ColumnFamilyHandle objects;
  private final ColumnFamilyHandle pending;
  private final ColumnFamilyHandle atime;
  private final WriteOptions synced;
  private final WriteOptions unsynced;
  private final Map<String, Column> columns = new HashMap<>();
  private final LongAdder active = new LongAdder(); // calls in progress; close waits for them
  private volatile boolean closed;

  private MetaStore(Path dir, MetaMemory memory, DBOptions dbo, ColumnFamilyOptions cfo, RocksDB db,
      List<ColumnFamilyHandle> handles) {
    this.dir = dir;
    this.memory = memory;
    this.dbOptions = dbo;
    this.cfOptions = cfo;
    this.db = db;
    this.defaultCf = handles.get(0);
    this.objects = handles.get(1);
    this.pending = handles.get(2);
    this.synced = new WriteOptions().setSync(true);
    this.unsynced = new WriteOptions();
    for (int i = 0; i < COLUMNS.size(); i++) {
      columns.put(COLUMNS.get(i), new Column(COLUMNS.get(i), handles.get(3 + i)));
    }
    this.atime = handles.get(3 + COLUMNS.size());
  }

  /** Opens (creating if needed) the store in {@code dir}. */
  public static MetaStore open(Path dir) throws IOException {
    Files.createDirectories(dir);
    MetaMemory memory = new MetaMemory();
    DBOptions dbo = memory.dbOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true)
        .setMaxBackgroundJobs(2).setKeepLogFileNum(4);
    ColumnFamilyOptions cfo = memory.columnOptions(); // ordered: listings are prefix scans
    List<ColumnFamilyDescriptor> cfs = new ArrayList<>(List.of(
        new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfo),
        new ColumnFamilyDescriptor(OBJECTS_CF, cfo),
        new ColumnFamilyDescriptor(PENDING_CF, cfo)));
    for (String c : COLUMNS) {
      cfs.add(new ColumnFamilyDescriptor(c.getBytes(StandardCharsets.UTF_8), cfo));
    }
    cfs.add(new ColumnFamilyDescriptor(ATIME_CF, cfo));
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    try {
      RocksDB db = RocksDB.open(dbo, dir.toString(), cfs, handles);
      return new MetaStore(dir, memory, dbo, cfo, db, handles);
    } catch (RocksDBException e) {
      dbo.close();
      cfo.close();
      memory.close();
      throw new IOException("Error opening RocksDB at " + dir + ": " + e.getMessage(), e);
    }
  }

  /** RocksDB memory a store holds: all its memtables, and its block cache's usage and capacity (bytes). */
  public record MemoryUse(long memtables, long cache, long cacheCapacity) {
  }

  /** The RocksDB memory this store holds now. */
  public MemoryUse memoryUse() throws IOException {
    enter();
    try {
      return new MemoryUse(db.getAggregatedLongProperty("rocksdb.cur-size-all-mem-tables"),
          db.getLongProperty(objects, "rocksdb.block-cache-usage"),
          db.getLongProperty(objects, "rocksdb.block-cache-capacity"));
    } catch (RocksDBException e) {
      throw new IOException("Error reading RocksDB memory properties of " + dir, e);
    } finally {
      exit();
    }
  }

  /** The metadata of {@code key}, or null. */
  public ObjectMeta get(String key) throws IOException {
    enter();
    try {
      try {
        byte[] v = db.get(objects, bytes(key));
        return v == null ? null : ObjectMetaCodec.decode(v);
      } catch (RocksDBException e) {
        throw new IOException("Error in RocksDB get of " + key + " in " + dir, e);
      }
    } finally {
      exit();
    }
  }

  /** Durably records {@code intent} (synced write): the first step of a commit. */
  public void putIntent(CommitIntent intent) throws IOException {
    enter();
    try {
      try {
        db.put(pending, synced, bytes(intent.workFile()), JSON.writeValueAsBytes(intent));
      } catch (RocksDBException e) {
        throw new IOException("Error in RocksDB put of commit intent " + intent.workFile() + " in " + dir, e);
      }
    } finally {
      exit();
    }
  }

  /**
   * Publishes the intent's metadata and drops the intent, atomically. Not synced: the synced intent already
   * guarantees the outcome after a power loss; a process crash loses nothing written to RocksDB's WAL.
   */
  public void completeIntent(CommitIntent intent) throws IOException {
    enter();
    try {
      try (WriteBatch batch = new WriteBatch()) {
        batch.put(objects, bytes(intent.key()), ObjectMetaCodec.encode(intent.meta()));
        batch.delete(pending, bytes(intent.workFile()));
        db.write(unsynced, batch);
      } catch (RocksDBException e) {
        throw new IOException("Error in RocksDB commit of " + intent.key() + " in " + dir, e);
      }
    } finally {
      exit();
    }
  }

  /**
   * Publishes {@code meta} as the object's record, keeping its intent (unsynced: the intent still guarantees the
   * outcome until {@link #dropIntent} runs, after the rename is durable).
   */
  public void publish(String key, ObjectMeta meta) throws IOException {
    enter();
    try {
      try {
        db.put(objects, unsynced, bytes(key), ObjectMetaCodec.encode(meta));
      } catch (RocksDBException e) {
        throw new IOException("Error in RocksDB put of " + key + " in " + dir, e);
      }
    } finally {
      exit();
    }
  }

  /** Drops an intent: its work file was discarded, or its commit is durable. */
  public void dropIntent(String workFile) throws IOException {
    enter();
    try {
      try {
        db.delete(pending, unsynced, bytes(workFile));
      } catch (RocksDBException e) {
        throw new IOException("Error in RocksDB delete of commit intent " + workFile + " in " + dir, e);
      }
    } finally {
      exit();
    }
  }

  /** All commit intents a crash left behind. */
  public List<CommitIntent> intents() throws IOException {
    enter();
    try {
      List<CommitIntent> out = new ArrayList<>();
      try (RocksIterator it = db.newIterator(pending)) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          out.add(JSON.readValue(it.value(), CommitIntent.class));
        }
      }
      return out;
    } finally {
      exit();
    }
  }

  /** Deletes {@code key} and its access time (synced, so an acknowledged delete survives power loss). */
  public void delete(String key) throws IOException {
    enter();
    try {
      try (WriteBatch batch = new WriteBatch()) {
        byte[] k = bytes(key);
        batch.delete(objects, k);
        batch.delete(atime, k);
        db.write(synced, batch);
      } catch (RocksDBException e) {
        throw new IOException("Error in RocksDB delete of " + key + " in " + dir, e);
      }
    } finally {
      exit();
    }
  }

  /** Deletes {@code keys} and their access times in one synced batch (one write-ahead-log sync for them all). */
  public void deleteAll(List<String> keys) throws IOException {
    deleteAll(keys, synced);
  }

  /**
   * Deletes {@code keys} and their access times in one batch that is not synced: readers no longer see them at once,
   * and a crash before {@link #syncWal} brings them back. For callers that must not hold locks across a sync.
   */
  public void deleteAllUnsynced(List<String> keys) throws IOException {
    deleteAll(keys, unsynced);
  }

  private void deleteAll(List<String> keys, WriteOptions how) throws IOException {
    enter();
    try (WriteBatch batch = new WriteBatch()) {
      for (String key : keys) {
        byte[] k = bytes(key);
        batch.delete(objects, k);
        batch.delete(atime, k);
      }
      db.write(how, batch);
    } catch (RocksDBException e) {
      throw new IOException("Error in RocksDB delete of " + keys.size() + " keys in " + dir, e);
    } finally {
      exit();
    }
  }

  /** Makes every write so far durable (one write-ahead-log sync). */
  public void syncWal() throws IOException {
    enter();
    try {
      db.syncWal();
    } catch (RocksDBException e) {
      throw new IOException("Error in RocksDB sync of the write-ahead log in " + dir, e);
    } finally {
      exit();
    }
  }

  /** Deletes every key starting with {@code prefix} (a destroyed bucket), access times included. */
  public void deletePrefix(String prefix) throws IOException {
    enter();
    try {
      byte[] begin = bytes(prefix);
      byte[] end = begin.clone();
      end[end.length - 1]++; // prefix ends with '/', so this cannot overflow
      try {
        db.deleteRange(atime, unsynced, begin, end);
        db.deleteRange(objects, synced, begin, end);
      } catch (RocksDBException e) {
        throw new IOException("Error in RocksDB deleteRange of " + prefix + " in " + dir, e);
      }
    } finally {
      exit();
    }
  }

  /** Total size of the objects whose keys start with {@code prefix} ("" for all); a scan that decodes only sizes. */
  public long sizeOfPrefix(String prefix) throws IOException {
    return totals(prefix).bytes();
  }

  /** How many objects, and how many bytes, are recorded under a key prefix. */
  public record Totals(long objects, long bytes) {
  }

  /** The objects whose keys start with {@code prefix} ("" for all), counted; a scan that decodes only sizes. */
  public Totals totals(String prefix) throws IOException {
    enter();
    try {
      byte[] p = bytes(prefix);
      long total = 0;
      long n = 0;
      // Reused arrays: at a target's start every record is counted (10 million: seconds), and copying each key and
      // value into new arrays was most of that.
      byte[] head = new byte[ObjectMetaCodec.SIZE_END];
      byte[] keyHead = new byte[p.length];
      try (ReadOptions ro = new ReadOptions().setFillCache(false); RocksIterator it = db.newIterator(objects, ro)) {
        for (it.seek(p); it.isValid(); it.next()) {
          if (p.length > 0 && (it.key(keyHead) < p.length || !java.util.Arrays.equals(keyHead, p))) {
            break;
          }
          if (it.value(head) < head.length) {
            throw new IOException("a record in " + dir + " is shorter than its size field");
          }
          total += ObjectMetaCodec.size(head);
          n++;
        }
      }
      return new Totals(n, total);
    } finally {
      exit();
    }
  }

  /** Whether no object is recorded here at all. */
  public boolean isEmpty() throws IOException {
    enter();
    try {
      try (RocksIterator it = db.newIterator(objects)) {
        it.seekToFirst();
        return !it.isValid();
      }
    } finally {
      exit();
    }
  }

  /** Records access times (key to epoch millis) in one unsynced batch. */
  public void putAtimes(Map<String, Long> atimes) throws IOException {
    enter();
    try {
      try (WriteBatch batch = new WriteBatch()) {
        for (Map.Entry<String, Long> e : atimes.entrySet()) {
          batch.put(atime, bytes(e.getKey()), longBytes(e.getValue()));
        }
        db.write(unsynced, batch);
      } catch (RocksDBException e) {
        throw new IOException("Error in RocksDB write of " + atimes.size() + " access times in " + dir, e);
      }
    } finally {
      exit();
    }
  }

  /** The recorded access time of {@code key}, epoch millis, or 0 when none was recorded. */
  public long atime(String key) throws IOException {
    enter();
    try {
      try {
        byte[] v = db.get(atime, bytes(key));
        return v == null ? 0 : toLong(v);
      } catch (RocksDBException e) {
        throw new IOException("Error in RocksDB get of atime " + key + " in " + dir, e);
      }
    } finally {
      exit();
    }
  }

  /** What {@link #scanAccess} reports for each object. */
  @FunctionalInterface
  public interface AccessVisitor {
    /**
     * @param atime recorded access time, epoch millis, or 0 when none
     * @return false to stop the scan
     */
    boolean visit(String key, long size, long mtime, long atime);
  }

  /**
   * Visits every object whose key starts with {@code prefix}, in key order, with its size, mtime and recorded
   * access time. The two column families share keys and order, so one merge walk pairs them without a lookup per
   * object. Access times with no object (a read raced a delete) are removed on the way.
   */
  public void scanAccess(String prefix, AccessVisitor visitor) throws IOException {
    enter();
    try {
      byte[] p = bytes(prefix);
      List<byte[]> orphans = new ArrayList<>();
      try (ReadOptions ro = new ReadOptions().setFillCache(false); RocksIterator objs = db.newIterator(objects, ro);
          RocksIterator times = db.newIterator(atime, ro)) {
        times.seek(p);
        for (objs.seek(p); objs.isValid() && startsWith(objs.key(), p); objs.next()) {
          byte[] k = objs.key();
          long at = 0;
          while (times.isValid() && startsWith(times.key(), p)) {
            int c = Arrays.compareUnsigned(times.key(), k);
            if (c > 0) {
              break;
            }
            if (c == 0) {
              at = toLong(times.value());
            } else if (orphans.size() < 10_000) {
              orphans.add(times.key());
            }
            times.next();
          }
          byte[] v = objs.value();
          if (!visitor.visit(new String(k, StandardCharsets.UTF_8), ObjectMetaCodec.size(v), ObjectMetaCodec.mtime(v),
              at)) {
            break;
          }
        }
      }
      if (!orphans.isEmpty()) {
        try (WriteBatch batch = new WriteBatch()) {
          for (byte[] k : orphans) {
            batch.delete(atime, k);
          }
          db.write(unsynced, batch);
        } catch (RocksDBException e) {
          throw new IOException("Error in RocksDB delete of orphaned access times in " + dir, e);
        }
      }
    } finally {
      exit();
    }
  }

  /**
   * Visits keys starting with {@code prefix}, in byte order, beginning after {@code startAfter} (a full key,
   * or null), until {@code visitor} returns false.
   */
  public void scan(String prefix, String startAfter, BiPredicate<String, ObjectMeta> visitor) throws IOException {
    enter();
    try {
      byte[] p = bytes(prefix);
      try (ReadOptions ro = new ReadOptions().setFillCache(false); RocksIterator it = db.newIterator(objects, ro)) {
        byte[] after = startAfter == null ? null : bytes(startAfter);
        boolean fromAfter = after != null && Arrays.compareUnsigned(after, p) >= 0;
        it.seek(fromAfter ? after : p);
        for (; it.isValid(); it.next()) {
          byte[] k = it.key();
          if (!startsWith(k, p)) {
            break;
          }
          if (fromAfter && Arrays.equals(k, after)) {
            continue;
          }
          if (!visitor.test(new String(k, StandardCharsets.UTF_8), ObjectMetaCodec.decode(it.value()))) {
            break;
          }
        }
      }
    } finally {
      exit();
    }
  }

  /** One item of a listing: an object ({@code meta} set) or, with a delimiter, a common prefix ({@code meta} null). */
  public record ListedKey(String key, ObjectMeta meta) {
    public boolean prefix() {
      return meta == null;
    }
  }

  /**
   * Lists keys starting with {@code prefix} after {@code startAfter} (a full key, or null), in byte order, at
   * most {@code limit} items. With a non-empty {@code delimiter}, keys whose remainder after {@code prefix}
   * contains it are rolled up into one common prefix (up to and including the delimiter), and the scan seeks past
   * the whole prefix at once. A {@code startAfter} inside a common prefix resumes after that prefix.
   */
  public List<ListedKey> list(String prefix, String startAfter, String delimiter, int limit) throws IOException {
    enter();
    try {
      List<ListedKey> out = new ArrayList<>();
      byte[] p = bytes(prefix);
      boolean grouping = delimiter != null && !delimiter.isEmpty();
      try (ReadOptions ro = new ReadOptions().setFillCache(false); RocksIterator it = db.newIterator(objects, ro)) {
        byte[] after = null;
        if (startAfter != null && startAfter.startsWith(prefix)) {
          String rest = startAfter.substring(prefix.length());
          int d = grouping ? rest.indexOf(delimiter) : -1;
          if (d >= 0) { // resume after the whole common prefix the token stands for
            it.seek(successor(bytes(prefix + rest.substring(0, d + delimiter.length()))));
          } else {
            after = bytes(startAfter);
            it.seek(after);
          }
        } else if (startAfter != null && Arrays.compareUnsigned(bytes(startAfter), p) > 0) {
          it.seek(bytes(startAfter));
          after = bytes(startAfter);
        } else {
          it.seek(p);
        }
        while (it.isValid() && out.size() < limit) {
          byte[] k = it.key();
          if (!startsWith(k, p)) {
            break;
          }
          if (after != null && Arrays.equals(k, after)) {
            it.next();
            continue;
          }
          String key = new String(k, StandardCharsets.UTF_8);
          int d = grouping ? key.indexOf(delimiter, prefix.length()) : -1;
          if (d >= 0) {
            String common = key.substring(0, d + delimiter.length());
            out.add(new ListedKey(common, null));
            it.seek(successor(bytes(common)));
          } else {
            out.add(new ListedKey(key, ObjectMetaCodec.decode(it.value())));
            it.next();
          }
        }
      }
      return out;
    } finally {
      exit();
    }
  }

  /** The smallest byte string greater than every string that starts with {@code b}. */
  static byte[] successor(byte[] b) {
    for (int i = b.length - 1; i >= 0; i--) {
      if (b[i] != (byte) 0xff) {
        byte[] s = Arrays.copyOf(b, i + 1);
        s[i]++;
        return s;
      }
    }
    return new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff}; // all 0xff: past every UTF-8 key
  }

  /** A named column family with plain byte values, for features that keep their own records. */
  public Column column(String name) {
    Column c = columns.get(name);
    if (c == null) {
      throw new IllegalArgumentException("no column family '" + name + "'; known: " + COLUMNS);
    }
    return c;
  }

  /** Key/value access to one column family. Writes are synced: callers acknowledge them to clients. */
  public final class Column {
    private final String name;
    private final ColumnFamilyHandle handle;

    private Column(String name, ColumnFamilyHandle handle) {
      this.name = name;
      this.handle = handle;
    }

    public byte[] get(String key) throws IOException {
      enter();
      try {
        try {
          return db.get(handle, bytes(key));
        } catch (RocksDBException e) {
          throw new IOException("Error in RocksDB get of " + key + " in " + name + " of " + dir, e);
        }
      } finally {
        exit();
      }
    }

    public void put(String key, byte[] value) throws IOException {
      enter();
      try {
        try {
          db.put(handle, synced, bytes(key), value);
        } catch (RocksDBException e) {
          throw new IOException("Error in RocksDB put of " + key + " in " + name + " of " + dir, e);
        }
      } finally {
        exit();
      }
    }

    public void delete(String key) throws IOException {
      enter();
      try {
        try {
          db.delete(handle, synced, bytes(key));
        } catch (RocksDBException e) {
          throw new IOException("Error in RocksDB delete of " + key + " in " + name + " of " + dir, e);
        }
      } finally {
        exit();
      }
    }

    /** Deletes every key of this column family that starts with {@code prefix} (synced). */
    public void deletePrefix(String prefix) throws IOException {
      enter();
      try {
        byte[] begin = bytes(prefix);
        byte[] end = Arrays.copyOf(begin, begin.length + 1);
        end[begin.length] = (byte) 0xff; // past every key of the prefix: UTF-8 never has 0xff
        db.deleteRange(handle, synced, begin, end);
      } catch (RocksDBException e) {
        throw new IOException("Error in RocksDB deleteRange of " + name + " in " + dir, e);
      } finally {
        exit();
      }
    }

    /** Deletes every key of this column family (synced). */
    public void clear() throws IOException {
      enter();
      try {
        try (RocksIterator it = db.newIterator(handle)) {
          it.seekToFirst();
          if (!it.isValid()) {
            return;
          }
          byte[] first = it.key();
          it.seekToLast();
          byte[] end = Arrays.copyOf(it.key(), it.key().length + 1); // just past the last key
          db.deleteRange(handle, synced, first, end);
        } catch (RocksDBException e) {
          throw new IOException("Error in RocksDB deleteRange of " + name + " in " + dir, e);
        }
      } finally {
        exit();
      }
    }

    /** Visits keys starting with {@code prefix} after {@code startAfter} (a full key, or null), in byte order. */
    public void scan(String prefix, String startAfter, BiPredicate<String, byte[]> visitor) throws IOException {
      enter();
      try {
        byte[] p = bytes(prefix);
        try (ReadOptions ro = new ReadOptions().setFillCache(false); RocksIterator it = db.newIterator(handle, ro)) {
          byte[] after = startAfter == null ? null : bytes(startAfter);
          boolean fromAfter = after != null && Arrays.compareUnsigned(after, p) >= 0;
          it.seek(fromAfter ? after : p);
          for (; it.isValid(); it.next()) {
            byte[] k = it.key();
            if (!startsWith(k, p)) {
              break;
            }
            if (fromAfter && Arrays.equals(k, after)) {
              continue;
            }
            if (!visitor.test(new String(k, StandardCharsets.UTF_8), it.value())) {
              break;
            }
          }
        }
      } finally {
        exit();
      }
    }
  }

  private static boolean startsWith(byte[] k, byte[] p) {
    if (k.length < p.length) {
      return false;
    }
    for (int i = 0; i < p.length; i++) {
      if (k[i] != p[i]) {
        return false;
      }
    }
    return true;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] longBytes(long v) {
    byte[] b = new byte[8];
    for (int i = 7; i >= 0; i--) {
      b[i] = (byte) v;
      v >>>= 8;
    }
    return b;
  }

  private static long toLong(byte[] b) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (b[i] & 0xff);
    }
    return v;
  }

  /** Counts a call in; fails once the store is closed (the caller took a mountpath that has left since). */
  private void enter() throws IOException {
    active.increment();
    if (closed) {
      active.decrement();
      throw new IOException("metadata store " + dir + " is closed (its mountpath left this target)");
    }
  }

  private void exit() {
    active.decrement();
  }

  /** Whether {@link #close} has begun. */
  public boolean isClosed() {
    return closed;
  }

  /**
   * Refuses new calls, waits for the calls in progress (a scan may take a while), then closes RocksDB. Idempotent.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true; // a call that counted itself in before this sees it or is waited for below
    long waitStarted = System.nanoTime();
    boolean interrupted = false;
    while (active.sum() > 0) {
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        interrupted = true; // finish closing anyway: the calls still running end soon
      }
      if (System.nanoTime() - waitStarted > 60_000_000_000L) {
        waitStarted = System.nanoTime(); // keep waiting: closing now would crash the JVM in the running call
        log.warn("metadata={} still has calls running after 60 s; waiting for them before closing", dir);
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    try {
      db.syncWal();
    } catch (RocksDBException ignored) {
      // closing anyway
    }
    synced.close();
    unsynced.close();
    defaultCf.close();
    objects.close();
    pending.close();
    atime.close();
    columns.values().forEach(c -> c.handle.close());
    db.close();
    dbOptions.close();
    cfOptions.close();
    memory.close();
  }
}
