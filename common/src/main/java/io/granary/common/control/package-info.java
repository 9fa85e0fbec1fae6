/** The control-plane HTTP client nodes use to talk to each other (join, metasync, listings). Not a data path. */
package io.granary.common.control;
