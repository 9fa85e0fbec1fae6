/**
 * Erasure coding across targets (docs/protection.md, "Erasure coding across targets"): the owner of an object of a
 * bucket with {@code ec.data} &gt; 0 sends D data and P parity slices (or P full replicas, below
 * {@code ec.objSizeLimit}) to the next D+P targets in HRW order after its commit; each holder keeps them apart from
 * objects ({@link io.granary.target.ec.SliceStore}); a read that finds no usable main copy rebuilds it from any D
 * slices ({@link io.granary.target.ec.Rebuilder}).
 */
package io.granary.target.ec;
