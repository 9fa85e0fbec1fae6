/**
 * Real servers that tests (and benchmarks) run on loopback in place of cloud stores: {@link
 * io.granary.testkit.S3ProxyServer} (S3Proxy in its own JVM), {@link io.granary.testkit.FakeGcsServer} (the GCS
 * JSON API, enough for the real google-cloud-storage client) and {@link io.granary.testkit.FaultProxy} (counts
 * requests and injects 503s, stalls, truncation and corruption between a client and either).
 */
package io.granary.testkit;
