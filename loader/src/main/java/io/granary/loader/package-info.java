/** The load generator behind {@code granary load}: options, the run loop, its workers and the error type. */
package io.granary.loader;
