/** Configuration values shared by every command: sizes with units, durations. */
package io.granary.common.config;
