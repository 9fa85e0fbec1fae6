/** The node commands' config file ({@code --config FILE}): YAML keys named as the flags (docs/config.md). */
package io.granary.cli.config;
