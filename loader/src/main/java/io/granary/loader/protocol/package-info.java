/** The APIs the loader drives, behind one small interface: native (/v1/ with redirects), S3, plain HTTP GET. */
package io.granary.loader.protocol;
