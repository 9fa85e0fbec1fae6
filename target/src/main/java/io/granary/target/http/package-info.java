/** The target's HTTP API: object GET/HEAD/PUT/DELETE, per-target listing, metasync and health. */
package io.granary.target.http;
