/* crcache.h — which base blobs hold '\r', remembered in the session.
 *
 * A patch file needs to know whether the old side of each change holds a
 * carriage return (patch.c: such files go as binary patches).  Finding out
 * reads every base blob whole through `git cat-file` (35 ms of CPU for 2,000
 * changed files), yet a blob's id names its content for good, and a session's
 * exports share its base commit: the answers are kept in the session dir
 * (`base-cr`, the ids of this export's base blobs, sorted, each with 0 or 1)
 * and a later export reads only the blobs it has not seen.  The file is the
 * supervisor's, out of the jail's reach; one that does not parse is ignored. */
#ifndef JAIL_CRCACHE_H
#define JAIL_CRCACHE_H
#include "export.h"

/* Mark the PRE_BASE changes whose blob the file knows (base_cr_known, and
 * base_cr and, for a regular file, has_cr from it).  The answer is the blob's,
 * whatever its mode at this path. */
void crcache_apply(const char *session_dir, struct changeset *cs);
/* Keep the answers for every PRE_BASE change, known or just read (best
 * effort: a cache that cannot be written costs the next export the reads). */
void crcache_store(const char *session_dir, const struct changeset *cs);

#endif
