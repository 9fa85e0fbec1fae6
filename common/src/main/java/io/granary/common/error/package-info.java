/** API errors: one exception per condition, each with one HTTP status and a stable code. */
package io.granary.common.error;
