/** Rebalance as proxies see it: the primary's coordinator, the rebalance job, node status and the capacity check. */
package io.granary.proxy.rebalance;
