/** A target's mountpaths and its resilver as the API reports them (target, proxy and CLI share these records). */
package io.granary.common.mountpath;
