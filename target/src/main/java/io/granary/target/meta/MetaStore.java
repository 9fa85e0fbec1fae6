package io.granary.target.meta;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.clustermap.ClusterJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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

  private final Path dir;
  private final DBOptions dbOptions;
  private final ColumnFamilyOptions cfOptions;
  private final RocksDB db;
  private final ColumnFamilyHandle defaultCf;
  private final ColumnFamilyHandle objects;
  private final ColumnFamilyHandle pending;
  private final WriteOptions synced;
  private final WriteOptions unsynced;

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
  }

  /** Opens (creating if needed) the store in {@code dir}. */
  public static MetaStore open(Path dir) throws IOException {
    Files.createDirectories(dir);
    DBOptions dbo = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true)
        .setMaxBackgroundJobs(2).setKeepLogFileNum(4);
    ColumnFamilyOptions cfo = new ColumnFamilyOptions(); // ordered: listings are prefix scans
    List<ColumnFamilyDescriptor> cfs = List.of(
        new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfo),
        new ColumnFamilyDescriptor(OBJECTS_CF, cfo),
        new ColumnFamilyDescriptor(PENDING_CF, cfo));
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
    db.close();
    dbOptions.close();
    cfOptions.close();
  }
}
