/**
 * Resilver: a target's mountpaths change at run time (attach, detach, disable, a failed disk) or between runs, and
 * objects move to their new HRW mountpath while staying readable. Also the mountpath health check and the
 * {@code /v1/mountpaths} API (docs/resilver.md).
 */
package io.granary.target.resilver;
