package io.granary.common.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class DeleteRequestTest {

  private static DeleteRequest parse(String xml) {
    return DeleteRequest.parse(xml.getBytes(StandardCharsets.UTF_8));
  }

  private static void assertMalformed(String xml, String messagePart) {
    assertThatThrownBy(() -> parse(xml))
        .isInstanceOfSatisfying(S3ApiException.class, e -> {
          assertThat(e.code()).isEqualTo("MalformedXML");
          assertThat(e.status().code()).isEqualTo(400);
        })
        .hasMessageContaining(messagePart);
  }

  private static String objects(int n) {
    StringBuilder xml = new StringBuilder();
    for (int i = 0; i < n; i++) {
      xml.append("<Object><Key>k").append(i).append("</Key></Object>");
    }
    return xml.toString();
  }

  @Test
  void botocoreForm_withVersionAndQuiet() {
    DeleteRequest d = parse("<Delete xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        + "<Object><Key>a.txt</Key></Object><Object><Key>dir/b.txt</Key><VersionId>3HL4kqtJlcpXroDTDmJ</VersionId></Object>"
        + "<Quiet>true</Quiet></Delete>");

    assertThat(d.quiet()).isTrue();
    assertThat(d.objects()).containsExactly(
        ObjectIdentifier.of("a.txt"), new ObjectIdentifier("dir/b.txt", "3HL4kqtJlcpXroDTDmJ"));
  }

  @Test
  void javaSdkForm_quietFirst_declaration() {
    DeleteRequest d = parse("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Delete xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        + "<Quiet>false</Quiet><Object><Key>x</Key></Object></Delete>");

    assertThat(d.quiet()).isFalse();
    assertThat(d.objects()).containsExactly(ObjectIdentifier.of("x"));
  }

  @Test
  void prettyPrinted_withoutQuiet_isNotQuiet() {
    DeleteRequest d = parse("""
        <Delete>
            <Object>
                 <Key>sample1.txt</Key>
            </Object>
            <Object>
                 <Key>sample2.txt</Key>
            </Object>
        </Delete>
        """);

    assertThat(d.quiet()).isFalse();
    assertThat(d.objects()).extracting(ObjectIdentifier::key).containsExactly("sample1.txt", "sample2.txt");
  }

  @Test
  void keys_areKeptExactly_entitiesResolved() {
    DeleteRequest d = parse("<Delete><Object><Key>a&amp;b&lt;c&gt;d&quot;e&apos;f</Key></Object>"
        + "<Object><Key>  spaced  </Key></Object>"
        + "<Object><Key>line&#13;&#10;two&#9;tab</Key></Object>"
        + "<Object><Key>\u65e5\u672c/\ud83d\ude00.txt</Key></Object>"
        + "<Object><Key>&#x65E5;</Key></Object></Delete>");

    assertThat(d.objects()).extracting(ObjectIdentifier::key)
        .containsExactly("a&b<c>d\"e'f", "  spaced  ", "line\r\ntwo\ttab", "\u65e5\u672c/\ud83d\ude00.txt", "\u65e5");
  }

  @Test
  void conditionalDeleteElements_areIgnored() {
    DeleteRequest d = parse("<Delete><Object><Key>a</Key><ETag>\"e\"</ETag><LastModifiedTime>2026-01-01T00:00:00Z</LastModifiedTime>"
        + "<Size>5</Size></Object></Delete>");

    assertThat(d.objects()).containsExactly(ObjectIdentifier.of("a"));
  }

  @Test
  void emptyKey_isParsed_forThePerKeyError() {
    assertThat(parse("<Delete><Object><Key></Key></Object></Delete>").objects()).containsExactly(ObjectIdentifier.of(""));
  }

  @Test
  void quiet_isCaseInsensitiveAndTrimmed() {
    assertThat(parse("<Delete><Quiet> TRUE </Quiet>" + objects(1) + "</Delete>").quiet()).isTrue();
  }

  @Test
  void thousandKeys_areAccepted() {
    assertThat(parse("<Delete>" + objects(1000) + "</Delete>").objects()).hasSize(1000);
  }

  @Test
  void moreThanThousandKeys_isMalformed() {
    assertMalformed("<Delete>" + objects(1001) + "</Delete>", "1001 objects; at most 1000");
  }

  @Test
  void noObjects_isMalformed() {
    assertMalformed("<Delete/>", "no <Object>");
    assertMalformed("<Delete><Quiet>true</Quiet></Delete>", "no <Object>");
  }

  @Test
  void objectWithoutKey_isMalformed() {
    assertMalformed("<Delete><Object><Key>a</Key></Object><Object><VersionId>v</VersionId></Object></Delete>",
        "number 2 in the list has no <Key>");
  }

  @Test
  void twoKeysInOneObject_isMalformed() {
    assertMalformed("<Delete><Object><Key>a</Key><Key>b</Key></Object></Delete>", "2 <Key> elements");
  }

  @Test
  void quietNotBoolean_isMalformed() {
    assertMalformed("<Delete><Quiet>yes</Quiet>" + objects(1) + "</Delete>", "<Quiet> must be true or false");
  }
}
