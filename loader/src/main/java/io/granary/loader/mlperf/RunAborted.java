package io.granary.loader.mlperf;

/** A run stopped before its last step: a GET failed, or another accelerator's did. The message is one line. */
final class RunAborted extends RuntimeException {
  RunAborted(String reason) {
    super(reason, null, false, false);
  }
}
