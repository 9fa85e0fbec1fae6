package io.granary.common.s3;

import java.util.ArrayList;
import java.util.List;

/**
 * One element of a parsed request body: its local name (namespaces are ignored), its text and its child elements
 * in document order. Request documents are small and capped, so a tree is simpler than a streaming walk.
 *
 * @param name local name
 * @param text the element's character content, exactly as sent (entities resolved, CDATA merged)
 * @param children child elements in document order
 */
record XmlElement(String name, String text, List<XmlElement> children) {

  /** The children named {@code childName}, in order. */
  List<XmlElement> all(String childName) {
    List<XmlElement> out = new ArrayList<>();
    for (XmlElement c : children) {
      if (c.name.equals(childName)) {
        out.add(c);
      }
    }
    return out;
  }

  /** The text of the one child named {@code childName}, or {@code null} when there is none; twice is malformed. */
  String childText(String childName) {
    List<XmlElement> found = all(childName);
    if (found.size() > 1) {
      throw S3ApiException.malformedXml(
          "<" + name + "> has " + found.size() + " <" + childName + "> elements; at most one is allowed");
    }
    return found.isEmpty() ? null : found.get(0).text;
  }
}
