package io.granary.testkit;

import com.google.cloud.NoCredentials;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import com.google.api.gax.retrying.RetrySettings;
import java.net.URI;
import java.time.Duration;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.zip.CRC32C;

/** The real google-cloud-storage client pointed at a loopback endpoint, and the checksums GCS reports. */
final class GcsClients {
  private GcsClients() {
  }

  static Storage storage(URI endpoint) {
    return StorageOptions.http()
        .setHost(endpoint.toString())
        .setProjectId("test")
        .setCredentials(NoCredentials.getInstance())
        .build()
        .getService();
  }

  /** As {@link #storage(URI)} with quick retries (3 attempts, 10-50 ms apart) so fault tests stay short. */
  static Storage fastRetrying(URI endpoint) {
    return StorageOptions.http()
        .setHost(endpoint.toString())
        .setRetrySettings(RetrySettings.newBuilder()
            .setMaxAttempts(3)
            .setInitialRetryDelayDuration(Duration.ofMillis(10))
            .setMaxRetryDelayDuration(Duration.ofMillis(50))
            .setRetryDelayMultiplier(2.0)
            .setTotalTimeoutDuration(Duration.ofSeconds(20))
            .build())
        .setProjectId("test")
        .setCredentials(NoCredentials.getInstance())
        .build()
        .getService();
  }

  static String md5(byte[] data) throws Exception {
    return Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(data));
  }

  static String crc32c(byte[] data) {
    CRC32C crc = new CRC32C();
    crc.update(data);
    return Staging.crc32cBase64(crc.getValue());
  }

  static byte[] random(int size, long seed) {
    byte[] b = new byte[size];
    new java.util.Random(seed).nextBytes(b);
    return b;
  }
}
