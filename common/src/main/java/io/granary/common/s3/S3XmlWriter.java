package io.granary.common.s3;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.time.Instant;

/**
 * Writes an S3 XML document: the declaration, elements, and text escaped so that keys survive the round trip.
 *
 * <p>Written by hand rather than with {@code XMLStreamWriter} because S3 escapes text in ways StAX does not:
 * <ul>
 *   <li>{@code & < > " '} as {@code &amp; &lt; &gt; &quot; &apos;} (S3 sends ETags as {@code &quot;...&quot;});
 *   <li>CR and LF as {@code &#13;} and {@code &#10;}: a raw CR would reach the client as LF, because XML parsers
 *       normalise line ends, and the key would change;
 *   <li>characters XML 1.0 does not allow at all (C0 controls other than TAB, LF, CR; U+FFFE; U+FFFF) as
 *       hexadecimal references such as {@code &#x1;}. That is what S3 sends; strict XML 1.0 parsers (Java's,
 *       Python's expat, Go's) refuse it, and the cure, as with S3, is {@code encoding-type=url}, which boto3 and
 *       the AWS CLI always use for listings. Refusing the listing, or replacing the character, would instead
 *       hide or corrupt a key that every other operation accepts.
 * </ul>
 * An unpaired surrogate cannot be encoded in UTF-8 at all and becomes U+FFFD; valid keys never hold one
 * (see {@link S3Names#keyProblem}).
 *
 * <p>Methods throw {@link UncheckedIOException} when the underlying writer fails.
 */
public final class S3XmlWriter {
  /** The namespace of every S3 response document but Error. */
  public static final String NAMESPACE = "http://s3.amazonaws.com/doc/2006-03-01/";

  private final Writer out;

  public S3XmlWriter(Writer out) {
    this.out = out;
  }

  /** The XML declaration; call first. */
  public S3XmlWriter declaration() {
    return raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  }

  /** Opens the root element in the S3 namespace. */
  public S3XmlWriter startRoot(String name) {
    return raw("<").raw(name).raw(" xmlns=\"").raw(NAMESPACE).raw("\">");
  }

  /** Opens an element with an {@code xsi:type}, as S3 writes a Grantee: {@code <Grantee xmlns:xsi=".." xsi:type="Group">}. */
  public S3XmlWriter startTyped(String name, String xsiType) {
    return raw("<").raw(name).raw(" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:type=\"")
        .raw(xsiType).raw("\">");
  }

  public S3XmlWriter start(String name) {
    return raw("<").raw(name).raw(">");
  }

  public S3XmlWriter end(String name) {
    return raw("</").raw(name).raw(">");
  }

  /** {@code <name>text</name>}; a {@code null} text writes an empty element. */
  public S3XmlWriter element(String name, String text) {
    start(name);
    if (text != null) {
      text(text);
    }
    return end(name);
  }

  /** The element only when {@code text} is not {@code null}. */
  public S3XmlWriter optional(String name, String text) {
    return text == null ? this : element(name, text);
  }

  /** The element only when {@code text} is neither {@code null} nor empty. */
  public S3XmlWriter nonEmpty(String name, String text) {
    return text == null || text.isEmpty() ? this : element(name, text);
  }

  public S3XmlWriter element(String name, long value) {
    return start(name).raw(Long.toString(value)).end(name);
  }

  public S3XmlWriter element(String name, boolean value) {
    return start(name).raw(value ? "true" : "false").end(name);
  }

  /** A date in ISO 8601 with milliseconds. */
  public S3XmlWriter element(String name, Instant time) {
    return start(name).raw(S3Dates.iso8601(time)).end(name);
  }

  /** {@code <Owner>} (or {@code <Initiator>}) with ID and DisplayName; nothing when {@code owner} is null. */
  public S3XmlWriter owner(String name, Owner owner) {
    if (owner == null) {
      return this;
    }
    return start(name).element("ID", owner.id()).optional("DisplayName", owner.displayName()).end(name);
  }

  /** Escaped character content. */
  public S3XmlWriter text(String s) {
    try {
      int plainFrom = 0;
      int n = s.length();
      for (int i = 0; i < n; i++) {
        char c = s.charAt(i);
        if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
          i++; // a supplementary character: written as is
          continue;
        }
        String escape = escape(c);
        if (escape != null) {
          out.write(s, plainFrom, i - plainFrom);
          out.write(escape);
          plainFrom = i + 1;
        }
      }
      out.write(s, plainFrom, n - plainFrom);
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The escape for {@code c}, or {@code null} when it is written as is. Surrogates reaching here are unpaired. */
  private static String escape(char c) {
    return switch (c) {
      case '&' -> "&amp;";
      case '<' -> "&lt;";
      case '>' -> "&gt;";
      case '"' -> "&quot;";
      case '\'' -> "&apos;";
      case '\r' -> "&#13;";
      case '\n' -> "&#10;";
      case '\t' -> null;
      default -> {
        if (c < 0x20 || c == 0xFFFE || c == 0xFFFF) {
          yield "&#x" + Integer.toHexString(c) + ";";
        }
        yield Character.isSurrogate(c) ? "\uFFFD" : null;
      }
    };
  }

  private S3XmlWriter raw(String s) {
    try {
      out.write(s);
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
