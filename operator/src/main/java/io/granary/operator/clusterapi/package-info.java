/** The operator's client of a Granary cluster's admin API (the proxies' /v1/cluster endpoints). */
package io.granary.operator.clusterapi;
