package io.granary.common.membership;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.NodeRole;
import org.junit.jupiter.api.Test;

class NodeRegistrationTest {
  @Test
  void weightAndMapVersion_mayBeAbsent_andReadAsZero() throws Exception {
    NodeRegistration r = ClusterJson.mapper().readValue(
        "{\"id\":\"t1\",\"role\":\"target\",\"url\":\"http://127.0.0.1:1\"}", NodeRegistration.class);
    assertThat(r).isEqualTo(new NodeRegistration("t1", NodeRole.TARGET, "http://127.0.0.1:1", 0, 0));
  }

  @Test
  void mapVersion_travelsAsMapVersion() throws Exception {
    NodeRegistration r = new NodeRegistration("t1", NodeRole.TARGET, "http://127.0.0.1:1", 2).holding(7);
    String json = ClusterJson.mapper().writeValueAsString(r);
    assertThat(json).contains("\"map_version\":7");
    assertThat(ClusterJson.mapper().readValue(json, NodeRegistration.class)).isEqualTo(r);
  }

  @Test
  void bucketsVersion_travelsAsBucketsVersion_andMayBeAbsent() throws Exception {
    NodeRegistration r = new NodeRegistration("t1", NodeRole.TARGET, "http://127.0.0.1:1", 2).holding(7, 3);
    String json = ClusterJson.mapper().writeValueAsString(r);
    assertThat(json).contains("\"buckets_version\":3");
    assertThat(ClusterJson.mapper().readValue(json, NodeRegistration.class)).isEqualTo(r);
    assertThat(ClusterJson.mapper().readValue("{\"id\":\"t1\",\"role\":\"target\",\"url\":\"u\",\"map_version\":7}",
        NodeRegistration.class).bucketsVersion()).isZero();
  }
}
