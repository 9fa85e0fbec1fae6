/** Multipart uploads on the target that owns the key: parts staged on the key's mountpath, assembled on completion. */
package io.granary.target.multipart;
