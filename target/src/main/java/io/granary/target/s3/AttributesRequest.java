package io.granary.target.s3;

import io.granary.common.error.BadRequestException;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * What a GetObjectAttributes request asks for: the attributes named in {@code x-amz-object-attributes} (a comma
 * list, possibly over several header lines), and the page of parts ({@code x-amz-max-parts}, default 1000, and
 * {@code x-amz-part-number-marker}, default 0). Unknown names and malformed numbers are 400 InvalidArgument.
 *
 * @param attributes the attributes to answer, at least one
 * @param maxParts the most parts to list
 * @param partNumberMarker list parts after this number
 */
record AttributesRequest(Set<Attribute> attributes, int maxParts, int partNumberMarker) {
  static final String ATTRIBUTES_HEADER = "x-amz-object-attributes";
  static final String MAX_PARTS_HEADER = "x-amz-max-parts";
  static final String MARKER_HEADER = "x-amz-part-number-marker";
  static final int DEFAULT_MAX_PARTS = 1000;

  /** The attributes S3 knows, by their wire names. */
  enum Attribute {
    ETAG("ETag"), CHECKSUM("Checksum"), OBJECT_PARTS("ObjectParts"), STORAGE_CLASS("StorageClass"),
    OBJECT_SIZE("ObjectSize");

    final String wireName;

    Attribute(String wireName) {
      this.wireName = wireName;
    }

    static Attribute parse(String name) {
      for (Attribute a : values()) {
        if (a.wireName.equalsIgnoreCase(name)) {
          return a;
        }
      }
      throw BadRequestException.invalidArgument("Invalid attribute name specified: '" + name + "'; "
          + "x-amz-object-attributes takes ETag, Checksum, ObjectParts, StorageClass and ObjectSize");
    }
  }

  AttributesRequest {
    attributes = Set.copyOf(attributes);
  }

  static AttributesRequest parse(HttpHeaders h) {
    Set<Attribute> attributes = EnumSet.noneOf(Attribute.class);
    for (String line : h.getAll(ATTRIBUTES_HEADER)) {
      for (String name : line.split(",")) {
        if (!name.isBlank()) {
          attributes.add(Attribute.parse(name.strip()));
        }
      }
    }
    if (attributes.isEmpty()) {
      throw BadRequestException.invalidArgument("GetObjectAttributes needs x-amz-object-attributes: one or more "
          + "of ETag, Checksum, ObjectParts, StorageClass, ObjectSize");
    }
    return new AttributesRequest(attributes, number(h, MAX_PARTS_HEADER, DEFAULT_MAX_PARTS),
        number(h, MARKER_HEADER, 0));
  }

  boolean wants(Attribute a) {
    return attributes.contains(a);
  }

  private static int number(HttpHeaders h, String name, int absent) {
    String v = h.get(name);
    if (v == null) {
      return absent;
    }
    try {
      int n = Integer.parseInt(v.strip());
      if (n >= 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // answered below
    }
    throw BadRequestException.invalidArgument(name.toLowerCase(Locale.ROOT) + " must be a non-negative integer, got '"
        + v + "'");
  }
}
