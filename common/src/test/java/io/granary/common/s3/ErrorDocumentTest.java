package io.granary.common.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ErrorDocumentTest {

  @Test
  void codeMessageDetailsResourceRequestIdHostId_inOrder_withoutNamespace() {
    Map<String, String> details = new LinkedHashMap<>();
    details.put("ArgumentName", "max-keys");
    details.put("ArgumentValue", "-1");
    byte[] xml = new ErrorDocument("InvalidArgument", "max-keys must be <= 1000 & >= 0", details, "/b/k&x",
        "req-1", "p1").toXml();

    ParsedXml x = ParsedXml.parse(xml);

    assertThat(new String(xml, StandardCharsets.UTF_8)).startsWith("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error>");
    assertThat(x.name()).isEqualTo("Error");
    assertThat(x.namespace()).isNull();
    assertThat(x.childNames()).containsExactly("Code", "Message", "ArgumentName", "ArgumentValue", "Resource",
        "RequestId", "HostId");
    assertThat(x.text("Code")).isEqualTo("InvalidArgument");
    assertThat(x.text("Message")).isEqualTo("max-keys must be <= 1000 & >= 0");
    assertThat(x.text("ArgumentName")).isEqualTo("max-keys");
    assertThat(x.text("Resource")).isEqualTo("/b/k&x");
    assertThat(x.text("RequestId")).isEqualTo("req-1");
    assertThat(x.text("HostId")).isEqualTo("p1");
  }

  @Test
  void optionalParts_areLeftOut() {
    ParsedXml x = ParsedXml.parse(new ErrorDocument("InternalError", null, null, null, null, null).toXml());

    assertThat(x.childNames()).containsExactly("Code", "Message");
    assertThat(x.text("Message")).isEmpty();
  }
}
