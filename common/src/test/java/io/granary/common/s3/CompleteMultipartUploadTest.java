package io.granary.common.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class CompleteMultipartUploadTest {

  private static CompleteMultipartUpload parse(String xml) {
    return CompleteMultipartUpload.parse(xml.getBytes(StandardCharsets.UTF_8));
  }

  private static void assertRefused(String xml, String code, String messagePart) {
    assertThatThrownBy(() -> parse(xml))
        .isInstanceOfSatisfying(S3ApiException.class, e -> {
          assertThat(e.code()).isEqualTo(code);
          assertThat(e.status().code()).isEqualTo(400);
        })
        .hasMessageContaining(messagePart);
  }

  @Test
  void botocoreForm_etagBeforePartNumber_namespaceNoDeclaration() {
    // botocore writes members in shape order (ETag, checksums, PartNumber), no declaration, no whitespace.
    CompleteMultipartUpload c = parse("<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        + "<Part><ETag>\"7778aef83f66abc1fa1e8477f296d394\"</ETag><PartNumber>1</PartNumber></Part>"
        + "<Part><ETag>\"aaaaaef83f66abc1fa1e8477f296d394\"</ETag><PartNumber>2</PartNumber></Part>"
        + "</CompleteMultipartUpload>");

    assertThat(c.parts()).containsExactly(
        new CompletedPart(1, "\"7778aef83f66abc1fa1e8477f296d394\""),
        new CompletedPart(2, "\"aaaaaef83f66abc1fa1e8477f296d394\""));
    assertThat(c.parts().get(0).normalizedEtag()).isEqualTo("7778aef83f66abc1fa1e8477f296d394");
  }

  @Test
  void javaSdkForm_declarationAndEscapedQuotes() {
    // aws-sdk-java-v2 writes a declaration and escapes the ETag's quotes.
    CompleteMultipartUpload c = parse("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
        + "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        + "<Part><ETag>&quot;0123456789abcdef0123456789abcdef&quot;</ETag><PartNumber>1</PartNumber></Part>"
        + "</CompleteMultipartUpload>");

    assertThat(c.parts()).containsExactly(new CompletedPart(1, "\"0123456789abcdef0123456789abcdef\""));
    assertThat(c.parts().get(0).normalizedEtag()).isEqualTo("0123456789abcdef0123456789abcdef");
  }

  @Test
  void documentationForm_prettyPrintedWithoutNamespace_unquotedEtag() {
    CompleteMultipartUpload c = parse("""
        <CompleteMultipartUpload>
          <Part>
            <PartNumber> 1 </PartNumber>
            <ETag>a54357aff0632cce46d942af68356b38</ETag>
          </Part>
          <Part>
            <PartNumber>3</PartNumber>
            <ETag>
              "acbd18db4cc2f85cedef654fccc4a4d8"
            </ETag>
          </Part>
        </CompleteMultipartUpload>
        """);

    assertThat(c.parts()).extracting(CompletedPart::partNumber).containsExactly(1, 3);
    assertThat(c.parts()).extracting(CompletedPart::normalizedEtag)
        .containsExactly("a54357aff0632cce46d942af68356b38", "acbd18db4cc2f85cedef654fccc4a4d8");
    assertThat(c.parts().get(0).etag()).isEqualTo("a54357aff0632cce46d942af68356b38");
  }

  @Test
  void checksumAndUnknownElements_areIgnored() {
    CompleteMultipartUpload c = parse("<CompleteMultipartUpload>"
        + "<Part><ETag>\"e1\"</ETag><ChecksumCRC32>AAAAAA==</ChecksumCRC32><ChecksumCRC32C>BBBBBB==</ChecksumCRC32C>"
        + "<ChecksumSHA1>x</ChecksumSHA1><ChecksumSHA256>y</ChecksumSHA256><ChecksumCRC64NVME>z</ChecksumCRC64NVME>"
        + "<PartNumber>1</PartNumber></Part><Unknown>1</Unknown></CompleteMultipartUpload>");

    assertThat(c.parts()).containsExactly(new CompletedPart(1, "\"e1\""));
  }

  @Test
  void cdataEtag_isRead() {
    assertThat(parse("<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag><![CDATA[\"e1\"]]></ETag></Part>"
        + "</CompleteMultipartUpload>").parts()).containsExactly(new CompletedPart(1, "\"e1\""));
  }

  @Test
  void fromStream() {
    byte[] body = "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>e</ETag></Part></CompleteMultipartUpload>"
        .getBytes(StandardCharsets.UTF_8);

    assertThat(CompleteMultipartUpload.parse(new ByteArrayInputStream(body)).parts()).hasSize(1);
  }

  @Test
  void tenThousandPartsWithChecksums_fitTheCap() {
    StringBuilder xml = new StringBuilder("<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">\n");
    for (int i = 1; i <= 10_000; i++) {
      xml.append("  <Part>\n    <ETag>&quot;0123456789abcdef0123456789abcdef&quot;</ETag>\n")
          .append("    <ChecksumSHA256>47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=</ChecksumSHA256>\n")
          .append("    <PartNumber>").append(i).append("</PartNumber>\n  </Part>\n");
    }
    xml.append("</CompleteMultipartUpload>");
    assertThat(xml.length()).isGreaterThan(1 << 20);

    CompleteMultipartUpload c = parse(xml.toString());

    assertThat(c.parts()).hasSize(10_000);
    assertThat(c.parts().get(9_999).partNumber()).isEqualTo(10_000);
  }

  @Test
  void noParts_isMalformed() {
    assertRefused("<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"/>", "MalformedXML", "no <Part>");
    assertRefused("<CompleteMultipartUpload>\n</CompleteMultipartUpload>", "MalformedXML", "no <Part>");
  }

  @Test
  void partWithoutNumber_isMalformed() {
    assertRefused("<CompleteMultipartUpload><Part><ETag>e</ETag></Part></CompleteMultipartUpload>", "MalformedXML",
        "no <PartNumber>");
  }

  @Test
  void partWithoutEtag_isMalformed() {
    assertRefused("<CompleteMultipartUpload><Part><PartNumber>2</PartNumber></Part></CompleteMultipartUpload>",
        "MalformedXML", "part 2 has no <ETag>");
    assertRefused("<CompleteMultipartUpload><Part><PartNumber>2</PartNumber><ETag>\"\"</ETag></Part></CompleteMultipartUpload>",
        "MalformedXML", "part 2 has no <ETag>");
  }

  @Test
  void nonIntegerPartNumber_isMalformed() {
    assertRefused("<CompleteMultipartUpload><Part><PartNumber>one</PartNumber><ETag>e</ETag></Part></CompleteMultipartUpload>",
        "MalformedXML", "'one' is not an integer");
    assertRefused("<CompleteMultipartUpload><Part><PartNumber>99999999999</PartNumber><ETag>e</ETag></Part>"
        + "</CompleteMultipartUpload>", "MalformedXML", "not an integer");
  }

  @Test
  void partNumberOutOfRange_isInvalidArgument() {
    assertRefused("<CompleteMultipartUpload><Part><PartNumber>0</PartNumber><ETag>e</ETag></Part></CompleteMultipartUpload>",
        "InvalidArgument", "from 1 to 10000");
    assertRefused("<CompleteMultipartUpload><Part><PartNumber>10001</PartNumber><ETag>e</ETag></Part></CompleteMultipartUpload>",
        "InvalidArgument", "got 10001");
  }

  @Test
  void twoEtagsInOnePart_isMalformed() {
    assertRefused("<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>a</ETag><ETag>b</ETag></Part>"
        + "</CompleteMultipartUpload>", "MalformedXML", "2 <ETag> elements");
  }

  @Test
  void descendingOrDuplicateParts_areInvalidPartOrder() {
    assertRefused("<CompleteMultipartUpload><Part><PartNumber>2</PartNumber><ETag>a</ETag></Part>"
        + "<Part><PartNumber>1</PartNumber><ETag>b</ETag></Part></CompleteMultipartUpload>",
        "InvalidPartOrder", "part 1 follows part 2");
    assertRefused("<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>a</ETag></Part>"
        + "<Part><PartNumber>1</PartNumber><ETag>b</ETag></Part></CompleteMultipartUpload>",
        "InvalidPartOrder", "part 1 follows part 1");
  }

  @Test
  void gapsInPartNumbers_areAllowed() {
    assertThat(parse("<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>a</ETag></Part>"
        + "<Part><PartNumber>7</PartNumber><ETag>b</ETag></Part></CompleteMultipartUpload>").parts())
        .extracting(CompletedPart::partNumber).containsExactly(1, 7);
  }
}
