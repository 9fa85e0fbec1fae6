/** The granary command: one entry point with a subcommand per role or task. */
package io.granary.cli;
