/** Target-side jobs: the prefetch runner, its registry and the internal /v1/jobs endpoints proxies call. */
package io.granary.target.jobs;
