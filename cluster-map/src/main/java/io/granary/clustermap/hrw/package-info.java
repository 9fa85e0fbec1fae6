/** Rendezvous (highest random weight) placement of objects onto targets and mountpaths, as AIStore does it. */
package io.granary.clustermap.hrw;
