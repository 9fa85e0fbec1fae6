package io.granary.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/** A `granary local` start refused for bad flags says why, starts nothing and writes nothing under --data. */
class LocalCommandRefusalTest {
  @TempDir
  Path tmp;

  static Stream<Arguments> refusals() {
    return Stream.of(
        Arguments.of(new String[] {"--targets", "0"}, "--targets must be at least 1"),
        Arguments.of(new String[] {"--port", "65534", "--targets", "3"}, "--port must leave room"),
        Arguments.of(new String[] {"--access-key", "AKIDEXAMPLE"}, "give both --access-key and --secret-key"),
        Arguments.of(new String[] {"--class-sharing", "sometimes"}, "--class-sharing is auto or off"));
  }

  @ParameterizedTest
  @MethodSource("refusals")
  void badFlags_areRefused_beforeAnythingIsWrittenUnderData(String[] flags, String message) throws Exception {
    Path data = tmp.resolve("data");
    StringWriter err = new StringWriter();
    CommandLine cmd = new CommandLine(new LocalCommand()).setErr(new PrintWriter(err));
    String[] args = Stream.concat(Stream.of("--data", data.toString()), Stream.of(flags)).toArray(String[]::new);

    int exit = cmd.execute(args);

    assertThat(exit).isNotZero();
    assertThat(err.toString()).contains(message);
    assertThat(data).doesNotExist();
  }
}
