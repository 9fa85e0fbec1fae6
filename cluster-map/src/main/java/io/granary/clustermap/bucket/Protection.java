package io.granary.clustermap.bucket;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A bucket's data protection (docs/protection.md): n-way mirroring across a target's mountpaths, erasure coding
 * across targets, and validation of warm reads. The JSON names of the fields are the keys an operator sets
 * ({@code granary bucket props set b mirror.copies=2}), so the wire form is defined once, here; a field that is
 * absent (metadata written before protection existed) takes its default, which is today's behaviour: one copy, no
 * erasure coding, no validation on warm GET.
 *
 * <p>The checks here need nothing but the values. Whether the cluster can hold them (mountpaths, targets) is
 * {@link #checkFits}; whether a change is allowed once the bucket holds objects is {@link #checkChange}.
 *
 * @param mirrorCopies copies of each object on distinct mountpaths of its target, the main one included; 1 = none
 * @param ecData erasure coding data slices D; 0 with {@code ecParity} 0 means erasure coding is off
 * @param ecParity erasure coding parity slices P: that many targets may be lost
 * @param ecObjSizeLimit objects smaller than this get P full replicas on other targets instead of slices
 * @param validateWarmGet re-hash a cached object as it is served and repair it on a mismatch
 */
public record Protection(
    @JsonProperty(MIRROR_COPIES) int mirrorCopies,
    @JsonProperty(EC_DATA) int ecData,
    @JsonProperty(EC_PARITY) int ecParity,
    @JsonProperty(EC_OBJ_SIZE_LIMIT) long ecObjSizeLimit,
    @JsonProperty(VALIDATE_WARM_GET) boolean validateWarmGet) {
  public static final String MIRROR_COPIES = "mirror.copies";
  public static final String EC_DATA = "ec.data";
  public static final String EC_PARITY = "ec.parity";
  public static final String EC_OBJ_SIZE_LIMIT = "ec.objSizeLimit";
  public static final String VALIDATE_WARM_GET = "checksum.validateWarmGet";
  /** The keys {@link #with} accepts, in the order the docs list them. */
  public static final List<String> KEYS = List.of(MIRROR_COPIES, EC_DATA, EC_PARITY, EC_OBJ_SIZE_LIMIT,
      VALIDATE_WARM_GET);

  /** Below this size an object is replicated rather than sliced: AIStore's default (256 KiB). */
  public static final long DEFAULT_EC_OBJ_SIZE_LIMIT = 256 * 1024;
  /** Mountpaths of one target are few; a cap keeps a typo (copies=1000) a clear error before any lookup. */
  public static final int MAX_COPIES = 64;
  /** Slices per object; the codec (module erasure-code) works over GF(2^8), so D+P is at most 256. */
  public static final int MAX_SLICES = 256;

  /** One copy, no erasure coding, no validation on warm GET: a bucket as it was before protection existed. */
  public static final Protection NONE = new Protection(1, 0, 0, DEFAULT_EC_OBJ_SIZE_LIMIT, false);

  public Protection {
    if (mirrorCopies < 1 || mirrorCopies > MAX_COPIES) {
      throw new IllegalArgumentException(MIRROR_COPIES + " must be 1 (no extra copy) to " + MAX_COPIES + ", got "
          + mirrorCopies);
    }
    if (ecData != 0 || ecParity != 0) {
      if (ecData < 1) {
        throw new IllegalArgumentException(EC_DATA + " must be at least 1 when erasure coding is on (" + EC_PARITY
            + "=" + ecParity + "), got " + ecData + "; set both to 0 to turn it off");
      }
      if (ecParity < 1) {
        throw new IllegalArgumentException(EC_PARITY + " must be at least 1 when erasure coding is on (" + EC_DATA
            + "=" + ecData + "), got " + ecParity + "; set both to 0 to turn it off");
      }
      if (ecData + ecParity > MAX_SLICES) {
        throw new IllegalArgumentException(EC_DATA + " + " + EC_PARITY + " must be at most " + MAX_SLICES + ", got "
            + (ecData + ecParity));
      }
    }
    if (ecObjSizeLimit < 0) {
      throw new IllegalArgumentException(EC_OBJ_SIZE_LIMIT + " must be >= 0 bytes, got " + ecObjSizeLimit);
    }
  }

  /** Reads the JSON form; an absent field takes its default ({@link #NONE}). */
  @JsonCreator
  static Protection fromJson(@JsonProperty(MIRROR_COPIES) Integer mirrorCopies, @JsonProperty(EC_DATA) Integer ecData,
      @JsonProperty(EC_PARITY) Integer ecParity, @JsonProperty(EC_OBJ_SIZE_LIMIT) Long ecObjSizeLimit,
      @JsonProperty(VALIDATE_WARM_GET) Boolean validateWarmGet) {
    return new Protection(mirrorCopies == null ? NONE.mirrorCopies : mirrorCopies,
        ecData == null ? NONE.ecData : ecData, ecParity == null ? NONE.ecParity : ecParity,
        ecObjSizeLimit == null ? NONE.ecObjSizeLimit : ecObjSizeLimit,
        validateWarmGet == null ? NONE.validateWarmGet : validateWarmGet);
  }

  /** Whether objects are erasure coded across targets. */
  public boolean ecEnabled() {
    return ecData > 0;
  }

  /**
   * This protection with {@code settings} applied, each a key of {@link #KEYS} and its value as text (the CLI's
   * {@code KEY=VALUE}); every value is checked before any is applied, so a bad one changes nothing.
   *
   * @throws IllegalArgumentException an unknown key, a value of the wrong kind, or a result that is not valid
   */
  public Protection with(Map<String, String> settings) {
    int copies = mirrorCopies;
    int data = ecData;
    int parity = ecParity;
    long sizeLimit = ecObjSizeLimit;
    boolean validate = validateWarmGet;
    for (Map.Entry<String, String> e : settings.entrySet()) {
      String v = e.getValue() == null ? "" : e.getValue().trim();
      switch (e.getKey()) {
        case MIRROR_COPIES -> copies = (int) number(e.getKey(), v, Integer.MAX_VALUE);
        case EC_DATA -> data = (int) number(e.getKey(), v, Integer.MAX_VALUE);
        case EC_PARITY -> parity = (int) number(e.getKey(), v, Integer.MAX_VALUE);
        case EC_OBJ_SIZE_LIMIT -> sizeLimit = number(e.getKey(), v, Long.MAX_VALUE);
        case VALIDATE_WARM_GET -> validate = bool(e.getKey(), v);
        default -> throw new IllegalArgumentException("unknown bucket property '" + e.getKey() + "'; known: "
            + String.join(", ", KEYS));
      }
    }
    return new Protection(copies, data, parity, sizeLimit, validate);
  }

  /**
   * Whether the cluster can hold this protection.
   *
   * @param targets targets that hold objects (in placement)
   * @param mountpaths the fewest available mountpaths of any of them: every target must be able to keep the copies
   * @throws IllegalArgumentException naming the setting and what the cluster has
   */
  public void checkFits(int targets, int mountpaths) {
    if (mirrorCopies > mountpaths) {
      throw new IllegalArgumentException(MIRROR_COPIES + "=" + mirrorCopies + " needs as many mountpaths on every "
          + "target; the smallest target has " + mountpaths);
    }
    // The main copy lives on the owner; D+P slices go to other targets, so one more target than slices.
    if (ecEnabled() && ecData + ecParity > targets - 1) {
      throw new IllegalArgumentException(EC_DATA + " + " + EC_PARITY + " = " + (ecData + ecParity)
          + " needs at least " + (ecData + ecParity + 1) + " targets; the cluster has " + targets);
    }
  }

  /**
   * Whether a bucket may go from {@code current} to this protection. Slices already written were cut for D and P,
   * so those cannot change once the bucket holds objects; everything else can (a job adds or removes copies).
   *
   * @param hasObjects whether the bucket holds any object
   * @return null when allowed, else why not (the caller answers 409)
   */
  public String refusedChangeFrom(Protection current, boolean hasObjects) {
    if (hasObjects && (current.ecData != ecData || current.ecParity != ecParity)) {
      return EC_DATA + " and " + EC_PARITY + " cannot change once the bucket holds objects (now " + current.ecData
          + "+" + current.ecParity + ", asked " + ecData + "+" + ecParity + "); copy the objects to a new bucket "
          + "with the settings you want";
    }
    return null;
  }

  /** The keys whose values differ from {@code other}'s, for logs. */
  public Map<String, String> diff(Protection other) {
    Map<String, String> d = new LinkedHashMap<>();
    List<Object[]> pairs = new ArrayList<>();
    pairs.add(new Object[] {MIRROR_COPIES, mirrorCopies, other.mirrorCopies});
    pairs.add(new Object[] {EC_DATA, ecData, other.ecData});
    pairs.add(new Object[] {EC_PARITY, ecParity, other.ecParity});
    pairs.add(new Object[] {EC_OBJ_SIZE_LIMIT, ecObjSizeLimit, other.ecObjSizeLimit});
    pairs.add(new Object[] {VALIDATE_WARM_GET, validateWarmGet, other.validateWarmGet});
    for (Object[] p : pairs) {
      if (!p[1].equals(p[2])) {
        d.put((String) p[0], p[1] + " -> " + p[2]);
      }
    }
    return d;
  }

  private static long number(String key, String v, long max) {
    try {
      long n = Long.parseLong(v);
      if (n > max) {
        throw new NumberFormatException();
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be a whole number, got '" + v + "'");
    }
  }

  private static boolean bool(String key, String v) {
    return switch (v.toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException(key + " must be true or false, got '" + v + "'");
    };
  }
}
