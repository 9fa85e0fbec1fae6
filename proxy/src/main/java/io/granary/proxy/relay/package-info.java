/** Stream-through of object requests from a client to the owning target and back, with back-pressure both ways. */
package io.granary.proxy.relay;
