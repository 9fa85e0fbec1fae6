package io.granary.charts;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.common.exec.Background;
import io.granary.common.jvm.NativeHeapTrim;
import io.granary.common.jvm.SharedArchiveMapping;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPathConstants;
import javax.xml.xpath.XPathFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;

/**
 * What can be checked of the container image without Docker or a registry: the Dockerfile's inputs exist in the
 * build output cli packages, the launcher it installs runs that distribution (in the Dockerfile's layout and in
 * Jib's), and the Jib profile builds the same image (base, user, entrypoint, ports, JVM flags).
 *
 * <p>An integration test because it needs cli packaged (the verify phase of the reactor, after cli's package).
 */
class DockerImageIT {
  /** The image's user: the Dockerfile's USER, Jib's user, and the charts' runAsUser. */
  static final long IMAGE_UID = 10001;

  private static Dockerfile dockerfile;
  private static Path dist;

  @BeforeAll
  static void readDockerfile() {
    dockerfile = Dockerfile.parse(Repo.read("deploy/docker/Dockerfile"));
    dist = Repo.path("cli/target");
    assertThat(dist.resolve("granary.jar")).as("the distribution: run the reactor's verify, or package cli first")
        .isRegularFile();
  }

  @Test
  void everyPathTheDockerfileCopies_existsInTheBuildOutput() {
    List<Dockerfile.Instruction> copies = dockerfile.all("COPY");
    assertThat(copies).hasSizeGreaterThanOrEqualTo(3);
    for (Dockerfile.Instruction copy : copies) {
      assertThat(copy.hasFlag("--from")).as("%s copies from another stage", copy).isFalse();
      List<String> words = copy.words();
      for (String source : words.subList(0, words.size() - 1)) {
        Path p = Repo.path(source);
        assertThat(p).as("COPY source %s", source).exists();
        if (Files.isDirectory(p)) {
          assertThat(list(p)).as("COPY source %s is empty", source).isNotEmpty();
        }
      }
    }
  }

  @Test
  void dockerignore_letsInExactlyWhatTheDockerfileCopies() {
    List<String> rules = Repo.read("deploy/docker/Dockerfile.dockerignore").lines().map(String::strip)
        .filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
    assertThat(rules.get(0)).as("the ignore file starts by leaving everything out").isEqualTo("*");
    List<String> sources = new ArrayList<>();
    for (Dockerfile.Instruction copy : dockerfile.all("COPY")) {
      List<String> words = copy.words();
      sources.addAll(words.subList(0, words.size() - 1));
    }
    assertThat(rules.subList(1, rules.size())).containsExactlyInAnyOrderElementsOf(
        sources.stream().map(s -> "!" + s).toList());
  }

  @Test
  void theJarsClassPath_isInTheCopiedLibraries() throws IOException {
    try (JarFile jar = new JarFile(dist.resolve("granary.jar").toFile())) {
      var attributes = jar.getManifest().getMainAttributes();
      assertThat(attributes.getValue("Main-Class")).isEqualTo("io.granary.cli.GranaryCommand");
      String[] classPath = attributes.getValue("Class-Path").trim().split("\\s+");
      assertThat(classPath).isNotEmpty().allSatisfy(entry -> {
        assertThat(entry).startsWith("lib/");
        assertThat(dist.resolve(entry)).as("Class-Path entry %s", entry).isRegularFile();
      });
    }
  }

  @Test
  void launcher_runsTheDistribution_inTheDockerfilesLayout() throws Exception {
    assertThat(runLauncher(dist, "--version")).contains("granary 0.1.0");
  }

  @Test
  void launcher_runsTheDistribution_inJibsLayout(@TempDir Path jib) throws Exception {
    // What Jib writes beside the app: the class path as one line and the main class.
    List<String> classPath = new ArrayList<>(List.of(dist.resolve("granary.jar").toString()));
    list(dist.resolve("lib")).forEach(p -> classPath.add(p.toString()));
    Files.writeString(jib.resolve("jib-classpath-file"), String.join(":", classPath));
    Files.writeString(jib.resolve("jib-main-class-file"), "io.granary.cli.GranaryCommand");
    assertThat(runLauncher(jib, "--version")).contains("granary 0.1.0");
  }

  @Test
  void imageSettings_runAsANonRootUser_withTheGranaryEntrypoint() {
    assertThat(dockerfile.one("USER").arguments()).isEqualTo(IMAGE_UID + ":" + IMAGE_UID);
    assertThat(dockerfile.one("ENTRYPOINT").arguments()).isEqualTo("[\"granary\"]");
    assertThat(dockerfile.one("ENV").assignments().get("GRANARY_JVM_OPTS")).contains("-XX:MaxRAMPercentage=");
    assertThat(dockerfile.one("ENV").assignments().get("GRANARY_JVM_OPTS").split(" "))
        .as("background work yields to requests in the container as in granary local")
        .contains(Background.JVM_OPTIONS.toArray(String[]::new))
        .as("the image's JDK 17 maps its class-data archive unrelocated, as granary local's nodes do")
        .contains(SharedArchiveMapping.jvmOptions(17).toArray(String[]::new))
        .as("freed C heap goes back to the system, as in granary local (this JDK 17 knows the flag)")
        .contains(NativeHeapTrim.jvmOptions().toArray(String[]::new)).contains("-XX:TrimNativeHeapInterval=5000")
        .as("no hsperfdata sampler, as granary local's nodes").contains("-XX:-UsePerfData");
  }

  @Test
  void jibProfile_buildsTheSameImage() throws Exception {
    Document root = xml("pom.xml");
    Document cli = xml("cli/pom.xml");
    var xpath = XPathFactory.newInstance().newXPath();
    String jib = "/project/profiles/profile[id='image']/build/plugins/plugin[artifactId='jib-maven-plugin']"
        + "/configuration";
    assertThat(xpath.evaluate(jib + "/from/image", cli)).isEqualTo("${granary.image.base}");
    assertThat(dockerfile.one("ARG").assignments().get("BASE_IMAGE"))
        .isEqualTo(xpath.evaluate("/project/properties/granary.image.base", root));
    assertThat(xpath.evaluate(jib + "/container/environment/GRANARY_JVM_OPTS", cli))
        .isEqualTo("${granary.image.jvmOpts}");
    assertThat(dockerfile.one("ENV").assignments().get("GRANARY_JVM_OPTS"))
        .isEqualTo(xpath.evaluate("/project/properties/granary.image.jvmOpts", root));
    assertThat(xpath.evaluate(jib + "/container/user", cli)).isEqualTo(dockerfile.one("USER").arguments());
    assertThat(xpath.evaluate(jib + "/container/workingDirectory", cli))
        .isEqualTo(dockerfile.one("WORKDIR").arguments());
    assertThat(new ObjectMapper().readValue(dockerfile.one("ENTRYPOINT").arguments(), String[].class))
        .containsExactly(xpath.evaluate(jib + "/container/entrypoint", cli));
    NodeList ports = (NodeList) xpath.evaluate(jib + "/container/ports/port", cli, XPathConstants.NODESET);
    List<String> jibPorts = new ArrayList<>();
    for (int i = 0; i < ports.getLength(); i++) {
      jibPorts.add(ports.item(i).getTextContent());
    }
    assertThat(jibPorts).containsExactlyElementsOf(dockerfile.one("EXPOSE").words());
    // The launcher Jib adds is the file the Dockerfile copies to the same place.
    assertThat(xpath.evaluate(jib + "/extraDirectories/paths/path/into", cli)).isEqualTo("/usr/local/bin");
    assertThat(xpath.evaluate(jib + "/extraDirectories/paths/path/includes", cli)).isEqualTo("granary");
    assertThat(dockerfile.all("COPY")).anySatisfy(c -> assertThat(c.words())
        .containsExactly("deploy/docker/granary", "/usr/local/bin/granary"));
  }

  /** Runs deploy/docker/granary as the image would, with GRANARY_HOME pointing at a layout; returns its output. */
  private static String runLauncher(Path home, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(Repo.path("deploy/docker/granary").toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    Map<String, String> env = pb.environment();
    env.put("GRANARY_HOME", home.toString());
    env.put("GRANARY_JVM_OPTS", dockerfile.one("ENV").assignments().get("GRANARY_JVM_OPTS"));
    env.put("PATH", Path.of(System.getProperty("java.home"), "bin") + ":" + env.getOrDefault("PATH", "/usr/bin:/bin"));
    Process p = pb.start();
    String out;
    try (InputStream in = p.getInputStream()) {
      out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
    assertThat(p.exitValue()).as("launcher exit status; output:%n%s", out).isZero();
    return out;
  }

  private static Document xml(String relative) throws Exception {
    var factory = DocumentBuilderFactory.newInstance();
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    return factory.newDocumentBuilder().parse(Repo.path(relative).toFile());
  }

  private static List<Path> list(Path dir) {
    try (Stream<Path> s = Files.list(dir)) {
      return s.sorted().toList();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
