package io.granary.common.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class S3XmlWriterTest {

  private static String text(String s) {
    StringWriter out = new StringWriter();
    new S3XmlWriter(out).text(s);
    return out.toString();
  }

  /** A one-element document holding {@code key}, as a listing would write it. */
  private static byte[] document(String key) {
    S3XmlDocument doc = xml -> xml.startRoot("R").element("Key", key).end("R");
    return doc.toXml();
  }

  @Test
  void markupCharacters_areEntities() {
    assertThat(text("a&b<c>d\"e'f")).isEqualTo("a&amp;b&lt;c&gt;d&quot;e&apos;f");
  }

  @Test
  void lineEnds_areCharacterReferences_soTheySurviveParsing() {
    assertThat(text("a\rb\nc\r\nd\te")).isEqualTo("a&#13;b&#10;c&#13;&#10;d\te");
    String key = "a\rb\nc\r\nd\te";

    assertThat(ParsedXml.parse(document(key)).text("Key")).isEqualTo(key);
  }

  @Test
  void charactersXml10Forbids_areHexReferences_asS3SendsThem() {
    assertThat(text("x\u0000\u0001\u0008\u000b\u000c\u001b\u001fy")).isEqualTo(
        "x&#x0;&#x1;&#x8;&#xb;&#xc;&#x1b;&#x1f;y");
    assertThat(text("\ufffe\uffff")).isEqualTo("&#xfffe;&#xffff;");
  }

  @Test
  void forbiddenCharacterReferences_decodeToTheKey_forXml11TolerantParsers() {
    String key = "ctl\u0001\u0002\u001f-end";
    String xml = new String(document(key), StandardCharsets.UTF_8);
    assertThat(xml).contains("ctl&#x1;&#x2;&#x1f;-end");

    // The JDK parser refuses them in XML 1.0 (as it would S3's answer); an XML 1.1 parser reads the key back.
    byte[] asXml11 = xml.replace("version=\"1.0\"", "version=\"1.1\"").getBytes(StandardCharsets.UTF_8);
    assertThat(ParsedXml.parse(asXml11).text("Key")).isEqualTo(key);
  }

  @Test
  void unicode_isWrittenAsUtf8() {
    String key = "caf\u00e9/\u65e5\u672c\u8a9e/\ud83d\ude00\u200b\u00a0\u0085\u007f";
    byte[] xml = document(key);

    assertThat(new String(xml, StandardCharsets.UTF_8)).contains(key);
    assertThat(ParsedXml.parse(xml).text("Key")).isEqualTo(key);
  }

  @Test
  void unpairedSurrogates_becomeReplacementCharacters() {
    assertThat(text("a\ud800b\udc00c\ud83d")).isEqualTo("a\ufffdb\ufffdc\ufffd");
    assertThat(text("\ud83d\ude00")).isEqualTo("\ud83d\ude00");
  }

  @Test
  void declaration_andNamespace() {
    String xml = new String(document("k"), StandardCharsets.UTF_8);

    assertThat(xml).startsWith("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<R xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">");
    assertThat(ParsedXml.parse(document("k")).namespace()).isEqualTo(S3XmlWriter.NAMESPACE);
  }

  @Test
  void optionalElements() {
    StringWriter out = new StringWriter();
    new S3XmlWriter(out).optional("A", null).optional("B", "").nonEmpty("C", "").nonEmpty("D", null)
        .nonEmpty("E", "e").element("F", (String) null).owner("O", null).element("T", Instant.parse("2026-01-02T03:04:05Z"))
        .element("N", 42L).element("Z", false);

    assertThat(out.toString()).isEqualTo("<B></B><E>e</E><F></F><T>2026-01-02T03:04:05.000Z</T><N>42</N><Z>false</Z>");
  }
}
