/** Mountpaths, the on-disk layout, work files, per-object locks and the object store built on them. */
package io.granary.target.storage;
