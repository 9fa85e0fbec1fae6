/** Object listings merged across targets: sorted, paginated, each name once. */
package io.granary.proxy.listing;
