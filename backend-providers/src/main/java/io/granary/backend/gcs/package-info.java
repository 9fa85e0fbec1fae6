/** The Google Cloud Storage backend on google-cloud-storage's JSON API (HTTP) transport. */
package io.granary.backend.gcs;
