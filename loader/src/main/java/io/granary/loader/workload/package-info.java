/** What the loader reads and writes: seeded object content, sizes, and the names it picks from. */
package io.granary.loader.workload;
