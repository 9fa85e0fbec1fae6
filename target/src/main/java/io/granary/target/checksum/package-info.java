/** Streaming content checksums (xxhash64, md5, crc32c, sha256) computed over direct buffers as bytes arrive. */
package io.granary.target.checksum;
