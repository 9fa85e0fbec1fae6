/** A local cluster on one machine: one proxy and N targets as separate processes on 127.0.0.1. */
package io.granary.cli.local;
