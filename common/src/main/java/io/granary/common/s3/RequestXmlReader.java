package io.granary.common.s3;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.XMLConstants;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * Reads an XML request body into an {@link XmlElement} tree, refusing anything that could hurt the node: no DTD
 * (so no entity expansion, internal or external: XXE and "billion laughs" fail at the DOCTYPE), a byte cap, an
 * element cap and a depth cap. Every refusal is an {@link S3ApiException} (MalformedXML, or
 * MaxMessageLengthExceeded for the byte cap) whose message says what is wrong.
 *
 * <p>Bodies must be UTF-8 (a UTF-8 byte-order mark is fine), as S3 requires. Namespaces are ignored: clients
 * send {@code xmlns="http://s3.amazonaws.com/doc/2006-03-01/"} or nothing, and S3 accepts both, so elements are
 * matched by local name.
 */
final class RequestXmlReader {
  /** Deep enough for every S3 request document (they nest three or four levels). */
  static final int MAX_DEPTH = 16;
  private static final Pattern DECLARED_ENCODING =
      Pattern.compile("<\\?xml[^>]*?encoding\\s*=\\s*[\"']([A-Za-z0-9._-]+)[\"']");
  private static final Set<String> UTF8_NAMES = Set.of("UTF-8", "UTF8", "US-ASCII", "ASCII");

  private RequestXmlReader() {}

  /**
   * Reads at most {@code maxBytes} of {@code in}; more is {@code MaxMessageLengthExceeded}. The stream is read, not
   * closed.
   */
  static byte[] readCapped(InputStream in, int maxBytes) {
    try {
      byte[] body = in.readNBytes(maxBytes + 1);
      if (body.length > maxBytes) {
        throw S3ApiException.tooLarge(maxBytes);
      }
      return body;
    } catch (IOException e) {
      throw new UncheckedIOException("reading the XML request body failed", e);
    }
  }

  /** Whether {@code body} is empty or only whitespace (some operations take no body at all). */
  static boolean isBlank(byte[] body) {
    for (byte b : body) {
      if (b != ' ' && b != '\t' && b != '\r' && b != '\n') {
        return false;
      }
    }
    return true;
  }

  /**
   * Parses {@code body}, which must have the root element {@code root}.
   *
   * @param maxBytes larger bodies are refused before parsing
   * @param maxElements more elements than this are refused while parsing
   */
  static XmlElement parse(byte[] body, String root, int maxBytes, int maxElements) {
    if (body.length > maxBytes) {
      throw S3ApiException.tooLarge(maxBytes);
    }
    if (isBlank(body)) {
      throw S3ApiException.malformedXml("the request body is empty; expected a <" + root + "> document");
    }
    XMLStreamReader r = null;
    try {
      r = factory().createXMLStreamReader(new StringReader(decode(body)));
      XmlElement top = read(r, maxElements);
      if (!top.name().equals(root)) {
        throw S3ApiException.malformedXml("expected a <" + root + "> document, got <" + top.name() + ">");
      }
      return top;
    } catch (XMLStreamException e) {
      throw S3ApiException.malformedXml("the request body is not well-formed XML: " + oneLine(e.getMessage()));
    } finally {
      if (r != null) {
        try {
          r.close();
        } catch (XMLStreamException ignored) {
          // nothing held: the input is an in-memory array
        }
      }
    }
  }

  /**
   * The body as text. S3 request bodies are UTF-8; decoding here, strictly, rather than in the parser gives a
   * clear message for bad bytes (the JDK parser also prints those to stderr) and refuses other declared encodings
   * instead of guessing.
   */
  private static String decode(byte[] body) {
    int start = body.length >= 3 && body[0] == (byte) 0xEF && body[1] == (byte) 0xBB && body[2] == (byte) 0xBF ? 3 : 0;
    boolean utf16 = body.length >= 2
        && ((body[0] == (byte) 0xFE && body[1] == (byte) 0xFF) || (body[0] == (byte) 0xFF && body[1] == (byte) 0xFE));
    if (utf16) {
      throw S3ApiException.malformedXml("the request body is UTF-16; S3 request bodies must be UTF-8");
    }
    String head = new String(body, start, Math.min(body.length - start, 200), StandardCharsets.ISO_8859_1);
    Matcher m = DECLARED_ENCODING.matcher(head);
    if (m.lookingAt() && !UTF8_NAMES.contains(m.group(1).toUpperCase(Locale.ROOT))) {
      throw S3ApiException.malformedXml("the request body declares encoding '" + m.group(1)
          + "'; S3 request bodies must be UTF-8");
    }
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(body, start, body.length - start))
          .toString();
    } catch (CharacterCodingException e) {
      throw S3ApiException.malformedXml("the request body is not valid UTF-8");
    }
  }

  private static XmlElement read(XMLStreamReader r, int maxElements) throws XMLStreamException {
    // Each open element: its name, text so far, children so far.
    Deque<Open> open = new ArrayDeque<>();
    XmlElement top = null;
    int elements = 0;
    while (r.hasNext()) {
      int event = r.next();
      switch (event) {
        case XMLStreamConstants.DTD ->
            throw S3ApiException.malformedXml("DOCTYPE declarations are not allowed in S3 request bodies");
        case XMLStreamConstants.ENTITY_REFERENCE ->
            throw S3ApiException.malformedXml("undeclared entity reference &" + r.getLocalName() + ";");
        case XMLStreamConstants.START_ELEMENT -> {
          if (++elements > maxElements) {
            throw S3ApiException.malformedXml("the request body has more than " + maxElements + " elements");
          }
          if (open.size() >= MAX_DEPTH) {
            throw S3ApiException.malformedXml("elements are nested deeper than " + MAX_DEPTH + " levels");
          }
          open.push(new Open(r.getLocalName()));
        }
        case XMLStreamConstants.CHARACTERS, XMLStreamConstants.CDATA, XMLStreamConstants.SPACE -> {
          if (!open.isEmpty()) {
            open.peek().text.append(r.getText());
          }
        }
        case XMLStreamConstants.END_ELEMENT -> {
          Open done = open.pop();
          XmlElement e = new XmlElement(done.name, done.text.toString(), List.copyOf(done.children));
          if (open.isEmpty()) {
            top = e;
          } else {
            open.peek().children.add(e);
          }
        }
        default -> {
          // comments, processing instructions, the XML declaration: nothing to keep
        }
      }
    }
    if (top == null) {
      throw S3ApiException.malformedXml("the request body has no root element");
    }
    return top;
  }

  private static XMLInputFactory factory() {
    // The JDK's own implementation, whatever else is on the class path; a new one per body because factories are
    // not documented as thread-safe and these bodies are rare.
    XMLInputFactory f = XMLInputFactory.newDefaultFactory();
    f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
    f.setProperty(XMLConstants.ACCESS_EXTERNAL_DTD, "");
    f.setProperty(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
    f.setProperty(XMLInputFactory.IS_NAMESPACE_AWARE, true);
    f.setProperty(XMLInputFactory.IS_COALESCING, true);
    return f;
  }

  /** {@code s} cut to 64 characters, for quoting client text in a message. */
  static String abbreviate(String s) {
    return s.length() <= 64 ? s : s.substring(0, 61) + "...";
  }

  private static String oneLine(String s) {
    if (s == null) {
      return "parse error";
    }
    String t = s.replaceAll("\\s+", " ").trim();
    return t.length() <= 300 ? t : t.substring(0, 297) + "...";
  }

  private static final class Open {
    final String name;
    final StringBuilder text = new StringBuilder();
    final List<XmlElement> children = new ArrayList<>();

    Open(String name) {
      this.name = name;
    }
  }
}
