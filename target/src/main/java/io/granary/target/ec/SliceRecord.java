package io.granary.target.ec;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.clustermap.ClusterJson;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.meta.ObjectMetaCodec;
import java.io.IOException;
import java.util.Base64;

/**
 * What a holder keeps beside one slice (or replica) of one version of an object: enough to tell a stale slice of an
 * overwritten object, to verify the slice's bytes, and to rebuild the object and its record without its owner.
 *
 * @param provider the bucket's provider ({@code ais}, {@code aws}, ...)
 * @param bucket the bucket's name
 * @param bucketId the bucket's incarnation: a re-created bucket sees none of these
 * @param object the object's name
 * @param index the slice index, 0..D-1 data and D..D+P-1 parity; {@link #REPLICA} for a full copy
 * @param data D
 * @param parity P
 * @param cellSize the cell size the object was encoded with (bytes)
 * @param objectSize the object's size
 * @param version the object version's identity ({@link #versionOf}): mtime and content checksum on the owner
 * @param mtime the version's mtime, epoch ms: the newest version wins
 * @param objectRecord the owner's record of the version ({@link ObjectMetaCodec}, base64): restored with the object
 * @param sliceSize bytes in this slice (the object's size for a replica)
 * @param sliceChecksum xxhash64 of this slice's bytes, hex: checked on receipt and on read
 * @param mapVersion the cluster map version the holders were chosen by
 */
public record SliceRecord(String provider, String bucket, String bucketId, String object, int index, int data,
    int parity, int cellSize, long objectSize, String version, long mtime, String objectRecord, long sliceSize,
    String sliceChecksum, long mapVersion) {
  /** {@link #index} of a full replica. */
  public static final int REPLICA = -1;
  private static final ObjectMapper JSON = ClusterJson.mapper();

  public SliceRecord {
    if (index < REPLICA || data < 1 || parity < 1 || index >= data + parity || cellSize < 1 || objectSize < 0
        || sliceSize < 0 || version == null || !version.matches("[0-9A-Za-z_-]{1,200}") || sliceChecksum == null
        || objectRecord == null) {
      throw new IllegalArgumentException("invalid slice record: index " + index + " of " + data + "+" + parity
          + ", version " + version);
    }
  }

  /** An object version's identity: its mtime and its content checksum, as its owner recorded them. */
  public static String versionOf(ObjectMeta m) {
    return m.mtime() + "-" + m.checksum().replaceAll("[^0-9A-Za-z]", "_");
  }

  public boolean isReplica() {
    return index == REPLICA;
  }

  /** The owner's record of the version. */
  public ObjectMeta objectMeta() throws IOException {
    return ObjectMetaCodec.decode(Base64.getDecoder().decode(objectRecord));
  }

  /** {@code objectRecord} of {@code m}: its mirror copies are the owner's own. */
  public static String encodeMeta(ObjectMeta m) {
    return Base64.getEncoder().encodeToString(ObjectMetaCodec.encode(m.withCopies(java.util.List.of())));
  }

  public byte[] encode() {
    try {
      return JSON.writeValueAsBytes(this);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Decodes what {@link #encode} wrote; an IOException for anything else. */
  public static SliceRecord decode(byte[] b) throws IOException {
    try {
      return JSON.readValue(b, SliceRecord.class);
    } catch (IllegalArgumentException e) {
      throw new IOException("invalid slice record: " + e.getMessage(), e);
    }
  }

  /** The file name stem of this slice on its holder: {@code VERSION.INDEX} ({@code r} for a replica). */
  public String stem() {
    return version + "." + (isReplica() ? "r" : Integer.toString(index));
  }
}
