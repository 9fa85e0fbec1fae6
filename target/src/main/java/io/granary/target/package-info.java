/** The storage node: wiring of its HTTP API, storage, metadata and membership. */
package io.granary.target;
