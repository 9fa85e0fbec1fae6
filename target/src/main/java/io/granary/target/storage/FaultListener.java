package io.granary.target.storage;

import java.io.IOException;

/**
 * Told of an I/O error on a mountpath in a request's path (GET, PUT, commit, delete, listing), so the mountpath's
 * health is checked (AIStore's FSHC). Called on event loops too: must not block.
 */
@FunctionalInterface
public interface FaultListener {
  FaultListener NONE = (mp, e) -> { };

  void ioError(Mountpath mp, IOException e);
}
