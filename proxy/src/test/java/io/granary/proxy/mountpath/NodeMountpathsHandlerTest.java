package io.granary.proxy.mountpath;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NodeMountpathsHandlerTest {
  @Test
  void matches_aNodesMountpathsAndOneOfThem() {
    assertThat(NodeMountpathsHandler.matches("/v1/cluster/nodes/t1/mountpaths")).isTrue();
    assertThat(NodeMountpathsHandler.matches("/v1/cluster/nodes/t1/mountpaths/")).isTrue();
    assertThat(NodeMountpathsHandler.matches("/v1/cluster/nodes/t1/mountpaths/%2Fdata%2Fmp1")).isTrue();
  }

  @Test
  void matches_otherNodePaths_areNotMountpaths() {
    assertThat(NodeMountpathsHandler.matches("/v1/cluster/nodes/t1")).isFalse();
    assertThat(NodeMountpathsHandler.matches("/v1/cluster/nodes/t1/")).isFalse();
    assertThat(NodeMountpathsHandler.matches("/v1/cluster/nodes/t1/mountpathsX")).isFalse();
    assertThat(NodeMountpathsHandler.matches("/v1/cluster/nodes//mountpaths")).isFalse();
    assertThat(NodeMountpathsHandler.matches("/v1/cluster/map")).isFalse();
  }
}
