/** Per-operation stats (HdrHistogram), the periodic table, the final summary and the mergeable JSON results. */
package io.granary.loader.report;
