/** What targets and proxies say to each other about rebalancing: one target's progress, on the wire. */
package io.granary.common.rebalance;
