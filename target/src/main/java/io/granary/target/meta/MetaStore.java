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

/**
 * Object metadata of one mountpath in RocksDB. Column family {@code objects} maps
 * {@code provider/bucket/bucketId/objectName} to {@link ObjectMeta} (in {@link ObjectMetaCodec}'s form);
 * {@code pending} maps a work-file name to its {@link CommitIntent} (JSON; intents are rare). Keys are UTF-8,
 * so a prefix scan returns names in the byte order S3 listings use.
 *
 * <p>Thread-safe. Calls block on disk and run off the event loop, except {@link #get}, which reads the memtable
 * and block cache and is cheap enough for the GET path.
 */
public final class MetaStore implements AutoCloseable {
  static {
    RocksDB.loadLibrary();
  }

  private static final ObjectMapper JSON = ClusterJson.mapper();
  private static final byte[] OBJECTS_CF = "objects".getBytes(StandardCharsets.UTF_8);
  private static final byte[] PENDING_CF = "pending".getBytes(StandardCharsets.UTF_8);
  /** Extra column families other features keep beside object metadata (multipart uploads and their parts). */
  private static final List<String> COLUMNS = List.of("uploads", "parts");

  private final Path dir;
  private final DBOptions dbOptions;
  private final ColumnFamilyOptions cfOptions;
  private final RocksDB db;
  private final ColumnFamilyHandle defaultCf;
  private final ColumnFamilyHandle objects;
  private final ColumnFamilyHandle pending;
  private final WriteOptions synced;
  private final WriteOptions unsynced;
  private final Map<String, Column> columns = new HashMap<>();

  private MetaStore(Path dir, DBOptions dbo, ColumnFamilyOptions cfo, RocksDB db, List<ColumnFamilyHandle> handles) {
    this.dir = dir;
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
  }

  /** Opens (creating if needed) the store in {@code dir}. */
  public static MetaStore open(Path dir) throws IOException {
    Files.createDirectories(dir);
    DBOptions dbo = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true)
        .setMaxBackgroundJobs(2).setKeepLogFileNum(4);
    ColumnFamilyOptions cfo = new ColumnFamilyOptions(); // ordered: listings are prefix scans
    List<ColumnFamilyDescriptor> cfs = new ArrayList<>(List.of(
        new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfo),
        new ColumnFamilyDescriptor(OBJECTS_CF, cfo),
        new ColumnFamilyDescriptor(PENDING_CF, cfo)));
    for (String c : COLUMNS) {
      cfs.add(new ColumnFamilyDescriptor(c.getBytes(StandardCharsets.UTF_8), cfo));
    }
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    try {
      RocksDB db = RocksDB.open(dbo, dir.toString(), cfs, handles);
      return new MetaStore(dir, dbo, cfo, db, handles);
    } catch (RocksDBException e) {
      dbo.close();
      cfo.close();
      throw new IOException("Error opening RocksDB at " + dir + ": " + e.getMessage(), e);
    }
  }

  /** The metadata of {@code key}, or null. */
  public ObjectMeta get(String key) throws IOException {
    try {
      byte[] v = db.get(objects, bytes(key));
      return v == null ? null : ObjectMetaCodec.decode(v);
    } catch (RocksDBException e) {
      throw new IOException("Error in RocksDB get of " + key + " in " + dir, e);
    }
  }

  /** Durably records {@code intent} (synced write): the first step of a commit. */
  public void putIntent(CommitIntent intent) throws IOException {
    try {
      db.put(pending, synced, bytes(intent.workFile()), JSON.writeValueAsBytes(intent));
    } catch (RocksDBException e) {
      throw new IOException("Error in RocksDB put of commit intent " + intent.workFile() + " in " + dir, e);
    }
  }

  /**
   * Publishes the intent's metadata and drops the intent, atomically. Not synced: the synced intent already
   * guarantees the outcome after a power loss; a process crash loses nothing written to RocksDB's WAL.
   */
  public void completeIntent(CommitIntent intent) throws IOException {
    try (WriteBatch batch = new WriteBatch()) {
      batch.put(objects, bytes(intent.key()), ObjectMetaCodec.encode(intent.meta()));
      batch.delete(pending, bytes(intent.workFile()));
      db.write(unsynced, batch);
    } catch (RocksDBException e) {
      throw new IOException("Error in RocksDB commit of " + intent.key() + " in " + dir, e);
    }
  }

  /** Drops an intent whose work file was discarded. */
  public void dropIntent(String workFile) throws IOException {
    try {
      db.delete(pending, unsynced, bytes(workFile));
    } catch (RocksDBException e) {
      throw new IOException("Error in RocksDB delete of commit intent " + workFile + " in " + dir, e);
    }
  }

  /** All commit intents a crash left behind. */
  public List<CommitIntent> intents() throws IOException {
    List<CommitIntent> out = new ArrayList<>();
    try (RocksIterator it = db.newIterator(pending)) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        out.add(JSON.readValue(it.value(), CommitIntent.class));
      }
    }
    return out;
  }

  /** Deletes {@code key} (synced, so an acknowledged delete survives power loss). */
  public void delete(String key) throws IOException {
    try {
      db.delete(objects, synced, bytes(key));
    } catch (RocksDBException e) {
      throw new IOException("Error in RocksDB delete of " + key + " in " + dir, e);
    }
  }

  /** Deletes every key starting with {@code prefix} (a destroyed bucket). */
  public void deletePrefix(String prefix) throws IOException {
    byte[] begin = bytes(prefix);
    byte[] end = begin.clone();
    end[end.length - 1]++; // prefix ends with '/', so this cannot overflow
    try {
      db.deleteRange(objects, synced, begin, end);
    } catch (RocksDBException e) {
      throw new IOException("Error in RocksDB deleteRange of " + prefix + " in " + dir, e);
    }
  }

  /**
   * Visits keys starting with {@code prefix}, in byte order, beginning after {@code startAfter} (a full key,
   * or null), until {@code visitor} returns false.
   */
  public void scan(String prefix, String startAfter, BiPredicate<String, ObjectMeta> visitor) throws IOException {
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
      try {
        return db.get(handle, bytes(key));
      } catch (RocksDBException e) {
        throw new IOException("Error in RocksDB get of " + key + " in " + name + " of " + dir, e);
      }
    }

    public void put(String key, byte[] value) throws IOException {
      try {
        db.put(handle, synced, bytes(key), value);
      } catch (RocksDBException e) {
        throw new IOException("Error in RocksDB put of " + key + " in " + name + " of " + dir, e);
      }
    }

    public void delete(String key) throws IOException {
      try {
        db.delete(handle, synced, bytes(key));
      } catch (RocksDBException e) {
        throw new IOException("Error in RocksDB delete of " + key + " in " + name + " of " + dir, e);
      }
    }

    /** Visits keys starting with {@code prefix} after {@code startAfter} (a full key, or null), in byte order. */
    public void scan(String prefix, String startAfter, BiPredicate<String, byte[]> visitor) throws IOException {
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

  @Override
  public void close() {
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
    columns.values().forEach(c -> c.handle.close());
    db.close();
    dbOptions.close();
    cfOptions.close();
  }
}
