package io.granary.common.s3;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The body of DeleteObjects ({@code POST /bucket?delete}):
 *
 * <pre>{@code
 * <Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
 *   <Object><Key>a.txt</Key><VersionId>v1</VersionId></Object>
 *   <Quiet>true</Quiet>
 * </Delete>
 * }</pre>
 *
 * <p>1 to {@value #MAX_KEYS} objects, else MalformedXML (as S3). {@code Quiet} is {@code true} or {@code false}
 * (any case); conditional-delete elements of an object ({@code ETag}, {@code Size}...) are ignored. Keys are not
 * validated here: S3 reports a bad key as an {@code <Error>} of that key in the result, not as a failed request.
 *
 * @param quiet whether the result lists only the errors
 * @param objects the objects to delete, in the order sent
 */
public record DeleteRequest(boolean quiet, List<ObjectIdentifier> objects) {
  public static final int MAX_KEYS = 1000;
  public static final int MAX_BYTES = 1 << 20;
  /** 1000 objects of Object, Key, VersionId and the conditional-delete elements, with room to spare. */
  static final int MAX_ELEMENTS = 10_000;

  public DeleteRequest {
    objects = List.copyOf(objects);
  }

  /** Reads and parses the body from {@code in} (at most {@link #MAX_BYTES}). */
  public static DeleteRequest parse(InputStream in) {
    return parse(RequestXmlReader.readCapped(in, MAX_BYTES));
  }

  public static DeleteRequest parse(byte[] body) {
    XmlElement root = RequestXmlReader.parse(body, "Delete", MAX_BYTES, MAX_ELEMENTS);
    List<XmlElement> objectElements = root.all("Object");
    if (objectElements.isEmpty()) {
      throw S3ApiException.malformedXml("<Delete> lists no <Object>; at least one is required");
    }
    if (objectElements.size() > MAX_KEYS) {
      throw S3ApiException.malformedXml(
          "<Delete> lists " + objectElements.size() + " objects; at most " + MAX_KEYS + " are allowed in one request");
    }
    List<ObjectIdentifier> objects = new ArrayList<>(objectElements.size());
    for (XmlElement o : objectElements) {
      String key = o.childText("Key");
      if (key == null) {
        throw S3ApiException.malformedXml("<Object> number " + (objects.size() + 1) + " in the list has no <Key>");
      }
      objects.add(new ObjectIdentifier(key, o.childText("VersionId")));
    }
    return new DeleteRequest(quiet(root.childText("Quiet")), objects);
  }

  private static boolean quiet(String text) {
    if (text == null) {
      return false;
    }
    String t = text.strip();
    if (t.equalsIgnoreCase("true")) {
      return true;
    }
    if (t.equalsIgnoreCase("false")) {
      return false;
    }
    throw S3ApiException.malformedXml("<Quiet> must be true or false, got '" + RequestXmlReader.abbreviate(t) + "'");
  }
}
