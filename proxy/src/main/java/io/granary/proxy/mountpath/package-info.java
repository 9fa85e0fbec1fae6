/** A target's mountpaths through a proxy: operators attach, detach and disable disks at one endpoint. */
package io.granary.proxy.mountpath;
