package io.granary.common.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Hostile and odd request bodies: every parser goes through RequestXmlReader, so one class covers them all. */
class RequestXmlReaderTest {

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static void assertMalformed(byte[] body, String messagePart) {
    assertThatThrownBy(() -> DeleteRequest.parse(body))
        .isInstanceOfSatisfying(S3ApiException.class, e -> {
          assertThat(e.code()).isEqualTo("MalformedXML");
          assertThat(e.status().code()).isEqualTo(400);
        })
        .hasMessageContaining(messagePart);
  }

  @Test
  void externalEntity_isRefusedWithoutReadingTheFile(@TempDir Path dir) throws Exception {
    Path secret = dir.resolve("secret.txt");
    Files.writeString(secret, "TOP-SECRET");
    String xml = "<?xml version=\"1.0\"?>\n<!DOCTYPE Delete [<!ENTITY xxe SYSTEM \"" + secret.toUri() + "\">]>\n"
        + "<Delete><Object><Key>&xxe;</Key></Object></Delete>";

    assertThatThrownBy(() -> DeleteRequest.parse(utf8(xml)))
        .isInstanceOf(S3ApiException.class)
        .hasMessageContaining("DOCTYPE")
        .hasMessageNotContaining("TOP-SECRET")
        .extracting(e -> ((S3ApiException) e).code()).isEqualTo("MalformedXML");
  }

  @Test
  void externalDtd_isRefused() {
    assertMalformed(utf8("<!DOCTYPE Delete SYSTEM \"http://127.0.0.1:9/evil.dtd\"><Delete><Object><Key>a</Key></Object></Delete>"),
        "DOCTYPE");
  }

  @Test
  void parameterEntities_areRefused() {
    assertMalformed(utf8("<!DOCTYPE Delete [<!ENTITY % p SYSTEM \"http://127.0.0.1:9/x\"> %p;]>"
        + "<Delete><Object><Key>a</Key></Object></Delete>"), "");
  }

  @Test
  void billionLaughs_isRefused() {
    StringBuilder dtd = new StringBuilder("<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\">");
    for (int i = 1; i <= 9; i++) {
      dtd.append("<!ENTITY lol").append(i).append(" \"");
      for (int j = 0; j < 10; j++) {
        dtd.append("&lol").append(i == 1 ? "" : String.valueOf(i - 1)).append(';');
      }
      dtd.append("\">");
    }
    dtd.append("]><Delete><Object><Key>&lol9;</Key></Object></Delete>");

    assertMalformed(utf8(dtd.toString()), "DOCTYPE");
  }

  @Test
  void undeclaredEntity_isMalformed() {
    assertMalformed(utf8("<Delete><Object><Key>&nbsp;</Key></Object></Delete>"), "not well-formed");
  }

  @Test
  void twoMebibyteBody_isRefusedBeforeParsing() {
    byte[] big = new byte[2 << 20];
    java.util.Arrays.fill(big, (byte) ' ');
    byte[] head = utf8("<Delete><Object><Key>a</Key></Object>");
    System.arraycopy(head, 0, big, 0, head.length);

    assertThatThrownBy(() -> DeleteRequest.parse(big))
        .isInstanceOfSatisfying(S3ApiException.class, e -> {
          assertThat(e.code()).isEqualTo("MaxMessageLengthExceeded");
          assertThat(e.status().code()).isEqualTo(400);
        });
  }

  @Test
  void twoMebibyteStream_isRefusedAfterReadingOnlyTheCap() {
    CountingStream in = new CountingStream(new byte[2 << 20]);

    assertThatThrownBy(() -> DeleteRequest.parse(in))
        .isInstanceOfSatisfying(S3ApiException.class, e -> assertThat(e.code()).isEqualTo("MaxMessageLengthExceeded"));
    assertThat(in.read).isEqualTo(DeleteRequest.MAX_BYTES + 1);
  }

  @Test
  void tooManyElements_isRefused() {
    StringBuilder xml = new StringBuilder("<Delete>");
    for (int i = 0; i < DeleteRequest.MAX_ELEMENTS; i++) {
      xml.append("<x/>");
    }
    xml.append("<Object><Key>a</Key></Object></Delete>");

    assertMalformed(utf8(xml.toString()), "more than " + DeleteRequest.MAX_ELEMENTS + " elements");
  }

  @Test
  void deepNesting_isRefused() {
    String xml = "<Delete>" + "<a>".repeat(100) + "</a>".repeat(100) + "<Object><Key>k</Key></Object></Delete>";

    assertMalformed(utf8(xml), "nested deeper than");
  }

  @Test
  void notXml_isMalformed() {
    assertMalformed(utf8("{\"Objects\":[{\"Key\":\"a\"}]}"), "not well-formed");
  }

  @Test
  void truncatedDocument_isMalformed() {
    assertMalformed(utf8("<Delete><Object><Key>a</Key></Object>"), "not well-formed");
  }

  @Test
  void mismatchedTags_areMalformed() {
    assertMalformed(utf8("<Delete><Object><Key>a</Object></Key></Delete>"), "not well-formed");
  }

  @Test
  void contentAfterTheRoot_isMalformed() {
    assertMalformed(utf8("<Delete><Object><Key>a</Key></Object></Delete><Delete/>"), "not well-formed");
  }

  @Test
  void wrongRoot_saysWhatWasExpected() {
    assertMalformed(utf8("<CompleteMultipartUpload/>"), "expected a <Delete> document, got <CompleteMultipartUpload>");
  }

  @Test
  void emptyBody_isMalformed() {
    assertMalformed(new byte[0], "empty");
    assertMalformed(utf8(" \r\n"), "empty");
  }

  @Test
  void anyNamespace_orNone_isAccepted() {
    for (String open : new String[] {
        "<Delete>",
        "<Delete xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">",
        "<s3:Delete xmlns:s3=\"http://s3.amazonaws.com/doc/2006-03-01/\">"}) {
      String close = open.startsWith("<s3:") ? "</s3:Delete>" : "</Delete>";
      String inner = open.startsWith("<s3:") ? "<s3:Object><s3:Key>a</s3:Key></s3:Object>" : "<Object><Key>a</Key></Object>";

      assertThat(DeleteRequest.parse(utf8(open + inner + close)).objects()).containsExactly(ObjectIdentifier.of("a"));
    }
  }

  @Test
  void utf8ByteOrderMark_andUtf8OrAsciiDeclarations_areAccepted() {
    byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
    byte[] doc = utf8("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Delete><Object><Key>caf\u00e9</Key></Object></Delete>");
    byte[] withBom = new byte[bom.length + doc.length];
    System.arraycopy(bom, 0, withBom, 0, bom.length);
    System.arraycopy(doc, 0, withBom, bom.length, doc.length);
    byte[] ascii = utf8("<?xml version='1.0' encoding='us-ascii'?><Delete><Object><Key>a</Key></Object></Delete>");

    assertThat(DeleteRequest.parse(withBom).objects()).containsExactly(ObjectIdentifier.of("caf\u00e9"));
    assertThat(DeleteRequest.parse(ascii).objects()).containsExactly(ObjectIdentifier.of("a"));
  }

  @Test
  void otherEncodings_areRefused() {
    byte[] latin1 = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><Delete><Object><Key>caf\u00e9</Key></Object></Delete>"
        .getBytes(StandardCharsets.ISO_8859_1);
    byte[] utf16 = "<Delete><Object><Key>a</Key></Object></Delete>".getBytes(StandardCharsets.UTF_16);

    assertMalformed(latin1, "declares encoding 'ISO-8859-1'; S3 request bodies must be UTF-8");
    assertMalformed(utf16, "UTF-16");
  }

  @Test
  void invalidUtf8_isMalformed() {
    byte[] doc = utf8("<Delete><Object><Key>xx</Key></Object></Delete>");
    doc[21] = (byte) 0xC3; // a lead byte followed by ASCII
    assertMalformed(doc, "not valid UTF-8");
  }

  @Test
  void commentsAndProcessingInstructions_areIgnored() {
    byte[] doc = utf8("<?xml version=\"1.0\"?><!-- c --><Delete><?pi x?><Object><!-- k --><Key>a<!-- mid -->b</Key></Object></Delete>");

    assertThat(DeleteRequest.parse(doc).objects()).containsExactly(ObjectIdentifier.of("ab"));
  }

  private static final class CountingStream extends InputStream {
    private final ByteArrayInputStream in;
    int read;

    CountingStream(byte[] data) {
      this.in = new ByteArrayInputStream(data);
    }

    @Override
    public int read() {
      int b = in.read();
      if (b >= 0) {
        read++;
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      int n = in.read(b, off, len);
      if (n > 0) {
        read += n;
      }
      return n;
    }
  }
}
