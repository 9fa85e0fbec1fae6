/** Object metadata kept in RocksDB, one database per mountpath, with crash-safe commit intents. */
package io.granary.target.meta;
