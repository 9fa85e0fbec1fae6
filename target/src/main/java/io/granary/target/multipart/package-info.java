/**
 * Multipart uploads on the target that created them: parts staged on the key's mountpath, assembled on completion
 * and, when the key changed owner meanwhile, sent to its owner.
 */
package io.granary.target.multipart;
