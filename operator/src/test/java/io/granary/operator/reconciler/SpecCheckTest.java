package io.granary.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.operator.Fixtures;
import io.granary.operator.customresource.GranaryClusterSpec;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

class SpecCheckTest {

  @Test
  void problems_goodSpec_none() {
    assertThat(SpecCheck.problems(Fixtures.cluster("gc", "ns", 3).getSpec())).isEmpty();
  }

  static Stream<Arguments> badSpecs() {
    return Stream.of(
        bad("negative proxies", s -> s.proxy.replicas = -1, "spec.proxy.replicas must be at least 1"),
        bad("zero targets", s -> s.target.replicas = 0, "spec.target.replicas must be at least 1"),
        bad("no image", s -> s.image = " ", "spec.image is required"),
        bad("no mountpaths", s -> s.target.mountpaths.clear(), "needs at least one mountpath"),
        bad("malformed size", s -> s.target.mountpaths.get(0).size = "10 gigs", "is not a size such as 500Gi"),
        bad("size and hostPath", s -> s.target.mountpaths.get(0).hostPath = "/mnt/x", "exactly one of size"),
        bad("neither size nor hostPath", s -> s.target.mountpaths.get(0).size = null, "exactly one of size"),
        bad("storageClass on hostPath", s -> {
          s.target.mountpaths.set(0, Fixtures.hostPath("d1", "/mnt/d1"));
          s.target.mountpaths.get(0).storageClass = "fast";
        }, "storageClass applies to volumes"),
        bad("relative hostPath", s -> s.target.mountpaths.set(0, Fixtures.hostPath("d1", "mnt/d1")),
            "hostPath must be absolute"),
        bad("duplicate mountpath", s -> s.target.mountpaths.get(1).name = "d1", "name used twice"),
        bad("bad mountpath name", s -> s.target.mountpaths.get(1).name = "Disk_1", "must be a DNS label"),
        bad("unknown service type", s -> s.s3Service.type = "Ingress", "is not one of ClusterIP"),
        bad("config key with newline", s -> s.config.put("a\nb", "1"), "is not a setting name"),
        bad("config value with newline", s -> s.config.put("head-timeout", "1s\nx=y"), "must be a single line"),
        bad("same ports", s -> s.target.port = s.proxy.port, "must differ"),
        bad("malformed proxy data size", s -> s.proxy.dataSize = "1GB!", "spec.proxy.dataSize"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badSpecs")
  void problems_badSpec_saysWhatIsWrong(String name, Consumer<GranaryClusterSpec> change, String expected) {
    GranaryClusterSpec s = Fixtures.cluster("gc", "ns", 3).getSpec();
    change.accept(s);

    assertThat(SpecCheck.problems(s)).anySatisfy(p -> assertThat(p).contains(expected));
  }

  private static Arguments bad(String name, Consumer<GranaryClusterSpec> change, String expected) {
    return Arguments.of(name, change, expected);
  }
}
