/**
 * Cold GET: reading an object of a remote bucket that is not cached (or is stale). One fetch per object however
 * many clients ask ({@link io.granary.target.coldget.ColdObjects}); the fetch streams the remote bytes into a work
 * file ({@link io.granary.target.coldget.FetchTask}) while every waiting client is sent the bytes already on disk
 * ({@link io.granary.target.http.GrowingFileResponse}); the remote's checksum is verified before the last byte goes
 * out and before the object is committed, so a bad object is never served whole nor cached.
 */
package io.granary.target.coldget;
