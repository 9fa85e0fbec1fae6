/**
 * N-way mirroring on a target (docs/protection.md): full copies of each object of a bucket with
 * {@code mirror.copies} above 1 on other mountpaths, made after the commit by a bounded background queue, restored
 * after a lost copy is read around or a mountpath is lost, added or removed when the setting changes. The file and
 * record steps are {@code io.granary.target.storage.MirrorCopies}; this package decides what to copy where and when.
 */
package io.granary.target.mirror;
