/** The wire form of object listings, shared by targets (per-target pages) and proxies (merged pages). */
package io.granary.common.listing;
