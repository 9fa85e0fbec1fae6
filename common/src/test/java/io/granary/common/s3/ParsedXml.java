package io.granary.common.s3;

import java.io.ByteArrayInputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.stream.Collectors;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * Test view of a response document, read back with the JDK's strict StAX parser independently of the code under
 * test: each element's namespace, local name, text and children.
 */
record ParsedXml(String namespace, String name, String text, List<ParsedXml> children) {

  static ParsedXml parse(byte[] xml) {
    XMLInputFactory f = XMLInputFactory.newDefaultFactory();
    f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    f.setProperty(XMLInputFactory.IS_COALESCING, true);
    try {
      XMLStreamReader r = f.createXMLStreamReader(new ByteArrayInputStream(xml));
      Deque<Builder> open = new ArrayDeque<>();
      ParsedXml root = null;
      while (r.hasNext()) {
        switch (r.next()) {
          case XMLStreamConstants.START_ELEMENT -> open.push(new Builder(r.getNamespaceURI(), r.getLocalName()));
          case XMLStreamConstants.CHARACTERS, XMLStreamConstants.CDATA -> open.peek().text.append(r.getText());
          case XMLStreamConstants.END_ELEMENT -> {
            Builder b = open.pop();
            ParsedXml e = new ParsedXml(b.namespace, b.name, b.text.toString(), List.copyOf(b.children));
            if (open.isEmpty()) {
              root = e;
            } else {
              open.peek().children.add(e);
            }
          }
          default -> { }
        }
      }
      return root;
    } catch (XMLStreamException e) {
      throw new AssertionError("not well-formed XML: " + e.getMessage(), e);
    }
  }

  /** Names of the children, in order. */
  List<String> childNames() {
    return children.stream().map(ParsedXml::name).collect(Collectors.toList());
  }

  /** The one child called {@code n}; fails when there is none or several. */
  ParsedXml child(String n) {
    List<ParsedXml> found = all(n);
    if (found.size() != 1) {
      throw new AssertionError("expected one <" + n + "> in <" + name + ">, found " + found.size() + ": " + childNames());
    }
    return found.get(0);
  }

  List<ParsedXml> all(String n) {
    return children.stream().filter(c -> c.name.equals(n)).collect(Collectors.toList());
  }

  String text(String n) {
    return child(n).text;
  }

  private static final class Builder {
    final String namespace;
    final String name;
    final StringBuilder text = new StringBuilder();
    final List<ParsedXml> children = new ArrayList<>();

    Builder(String namespace, String name) {
      this.namespace = namespace;
      this.name = name;
    }
  }
}
