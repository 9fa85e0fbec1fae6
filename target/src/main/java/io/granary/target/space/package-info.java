/** Capacity management of a target's mountpaths: used space, access times, LRU eviction of cached copies, 507s. */
package io.granary.target.space;
