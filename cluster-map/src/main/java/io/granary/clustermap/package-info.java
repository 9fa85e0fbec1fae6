/** The versioned cluster map: which proxies and targets exist, their states and weights, and who is primary. */
package io.granary.clustermap;
