/**
 * Stream-through of an object request to another node and its answer back, with back-pressure both ways: the
 * proxy's hop to the owning target, and a target reading an object a neighbor still holds while objects move.
 */
package io.granary.common.http.relay;
