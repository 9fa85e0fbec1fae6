package io.granary.common.listing;

/**
 * One object in a listing.
 *
 * @param name object name
 * @param size content length in bytes
 * @param checksum content checksum
 */
public record ObjectEntry(String name, long size, Checksum checksum) {
}
