package io.granary.cli;

import io.granary.common.s3.auth.CredentialStore;
import io.granary.common.s3.auth.Credentials;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** The S3 access keys a node verifies client signatures with: the proxy for every S3 request, a target for reads. */
public final class S3KeyOptions {
  @Option(names = "--access-key", defaultValue = "${env:GRANARY_ACCESS_KEY}",
      description = "S3 access key clients sign with (env GRANARY_ACCESS_KEY); with --secret-key.")
  String accessKey;

  @Option(names = "--secret-key", defaultValue = "${env:GRANARY_SECRET_KEY}",
      description = "S3 secret key (env GRANARY_SECRET_KEY; prefer the environment or a file to the command line).")
  String secretKey;

  @Option(names = "--credentials-file",
      description = "File of access keys, one ACCESS_KEY:SECRET_KEY per line ('#' comments allowed).")
  Path credentialsFile;

  /** Every access key from the flags, the environment and the credentials file. */
  CredentialStore credentials() throws IOException {
    List<Credentials> all = new ArrayList<>();
    if ((accessKey == null) != (secretKey == null)) {
      throw new IllegalArgumentException("give both --access-key and --secret-key, or neither");
    }
    if (accessKey != null) {
      all.add(new Credentials(accessKey, secretKey));
    }
    if (credentialsFile != null) {
      CredentialStore file = CredentialStore.load(credentialsFile);
      all.addAll(file.all());
    }
    return CredentialStore.of(all);
  }
}
