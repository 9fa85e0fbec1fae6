/** MLPerf Storage-style runs: DLIO workloads, emulated accelerators, AU as DLIO computes it, the accelerator search. */
package io.granary.loader.mlperf;
