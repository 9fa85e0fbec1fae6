package io.granary.common.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.common.error.InternalErrorException;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeleteResultTest {
  private static final String KEY = "a&b<c>\"d'e\r\n\u00e9\ud83d\ude00";

  @Test
  void deletedThenErrors() {
    DeleteResult r = new DeleteResult(false,
        List.of(ObjectIdentifier.of(KEY), new ObjectIdentifier("v", "ver-1")),
        List.of(new DeleteError("bad", null, "AccessDenied", "Access Denied"),
            DeleteError.of(new ObjectIdentifier("io", "ver-2"), new InternalErrorException("disk failed", null))));

    ParsedXml x = ParsedXml.parse(r.toXml());

    assertThat(x.name()).isEqualTo("DeleteResult");
    assertThat(x.namespace()).isEqualTo(S3XmlWriter.NAMESPACE);
    assertThat(x.childNames()).containsExactly("Deleted", "Deleted", "Error", "Error");
    assertThat(x.all("Deleted").get(0).childNames()).containsExactly("Key");
    assertThat(x.all("Deleted").get(0).text("Key")).isEqualTo(KEY);
    assertThat(x.all("Deleted").get(1).childNames()).containsExactly("Key", "VersionId");
    assertThat(x.all("Deleted").get(1).text("VersionId")).isEqualTo("ver-1");
    ParsedXml e0 = x.all("Error").get(0);
    assertThat(e0.childNames()).containsExactly("Key", "Code", "Message");
    assertThat(e0.text("Code")).isEqualTo("AccessDenied");
    ParsedXml e1 = x.all("Error").get(1);
    assertThat(e1.childNames()).containsExactly("Key", "VersionId", "Code", "Message");
    assertThat(e1.text("Code")).isEqualTo("InternalError");
    assertThat(e1.text("Message")).isEqualTo("disk failed");
  }

  @Test
  void quiet_listsOnlyErrors() {
    DeleteResult r = new DeleteResult(true, List.of(ObjectIdentifier.of("gone")),
        List.of(new DeleteError("bad", null, "AccessDenied", "Access Denied")));

    ParsedXml x = ParsedXml.parse(r.toXml());

    assertThat(x.childNames()).containsExactly("Error");
  }

  @Test
  void quiet_allDeleted_isAnEmptyResult() {
    ParsedXml x = ParsedXml.parse(new DeleteResult(true, List.of(ObjectIdentifier.of("a")), List.of()).toXml());

    assertThat(x.name()).isEqualTo("DeleteResult");
    assertThat(x.children()).isEmpty();
  }
}
