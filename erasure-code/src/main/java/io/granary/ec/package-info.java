/** Erasure coding: systematic Reed-Solomon over GF(2^8) and stripe-by-stripe encoding of objects into shards. */
package io.granary.ec;
