/** Checksum validation of stored objects: warm GETs re-hashed as they are served, scrubs, quarantine and repair. */
package io.granary.target.validation;
